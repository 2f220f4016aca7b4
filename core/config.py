"""Settings read from the environment in one place; everything else takes them as arguments."""
from __future__ import annotations

import os
from pathlib import Path

from pydantic import BaseModel

# Offline defaults: without these, library imports stall on network retries or flood stderr.
OFFLINE_ENV = {
    "HF_HUB_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "HF_HUB_DISABLE_PROGRESS_BARS": "1",
    "LITELLM_LOCAL_MODEL_COST_MAP": "True",
    "LANCEDB_LOG": "error",
}


def apply_offline_env() -> None:
    for key, value in OFFLINE_ENV.items():
        os.environ.setdefault(key, value)


REPO_ROOT = Path(__file__).resolve().parent.parent


class Settings(BaseModel):
    db_path: Path = REPO_ROOT / "data" / "build" / "demo.duckdb"
    demo_catalog: Path = REPO_ROOT / "data" / "demo"
    # A sentence-transformers folder or name; None = the packaged all-MiniLM-L6-v2 weights.
    embed_model: str | None = None
    # Any litellm model id ("openai/gpt-4o-mini", "ollama/llama3.1", ...); None = deterministic explanations.
    llm_model: str | None = None
    llm_timeout_s: float = 30.0
    # MCP server (`python -m core mcp`): the principal a stdio server runs as, optionally one of its roles,
    # and the hashed bearer-token file an HTTP server checks.
    mcp_principal: str | None = None
    mcp_role: str | None = None
    mcp_tokens: Path | None = None

    @classmethod
    def from_env(cls) -> "Settings":
        values = {}
        if os.environ.get("ASOF_DB"):
            values["db_path"] = Path(os.environ["ASOF_DB"])
        if os.environ.get("ASOF_CATALOG"):
            values["demo_catalog"] = Path(os.environ["ASOF_CATALOG"])
        if os.environ.get("ASOF_EMBED_MODEL"):
            values["embed_model"] = os.environ["ASOF_EMBED_MODEL"]
        if os.environ.get("ASOF_LLM_MODEL"):
            values["llm_model"] = os.environ["ASOF_LLM_MODEL"]
        if os.environ.get("ASOF_LLM_TIMEOUT"):
            values["llm_timeout_s"] = float(os.environ["ASOF_LLM_TIMEOUT"])
        for key, env in (("mcp_principal", "ASOF_MCP_PRINCIPAL"), ("mcp_role", "ASOF_MCP_ROLE"),
                         ("mcp_tokens", "ASOF_MCP_TOKENS")):
            if os.environ.get(env):
                values[key] = os.environ[env]
        return cls(**values)
