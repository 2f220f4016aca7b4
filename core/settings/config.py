"""Settings read from the environment in one place; everything else takes them as arguments."""
from __future__ import annotations

import os
from pathlib import Path

from pydantic import BaseModel, Field

from core.settings.auth import UVICORN_DEFAULT_FORWARDED, AuthSettings
from core.settings.objects import ObjectLocation, is_object_url

# Library defaults: without these, imports stall on network retries, flood stderr or start threads for nothing.
OFFLINE_ENV = {
    "HF_HUB_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "HF_HUB_DISABLE_PROGRESS_BARS": "1",
    "LITELLM_LOCAL_MODEL_COST_MAP": "True",
    "LANCEDB_LOG": "error",
    # An index's statistics without every centroid (core/retrieve/ann.py trained_partitions): 14 kB, not 7 MB.
    "LANCE_INCLUDE_VECTOR_CENTROIDS": "false",
    # numpy's OpenBLAS starts a thread per core when numpy is imported, ~0.1 s of a cold `ask` on two busy cores;
    # AsOf does no BLAS work in numpy (ONNX Runtime and Lance keep their own threads).
    "OPENBLAS_NUM_THREADS": "1",
}


def apply_offline_env() -> None:
    for key, value in OFFLINE_ENV.items():
        os.environ.setdefault(key, value)


REPO_ROOT = Path(__file__).resolve().parents[2]


# Plain settings read from the environment when set: variable -> (field, how its text is read).
_FROM_ENV = {
    "ASOF_POLL_SECONDS": ("poll_s", float),
    "ASOF_CATALOG": ("demo_catalog", Path),
    "ASOF_WAREHOUSE": ("warehouse_path", Path),
    "ASOF_VALUE_TIMEOUT": ("value_timeout_s", float),
    "ASOF_EMBED_MODEL": ("embed_model", str),
    "ASOF_LLM_MODEL": ("llm_model", str),
    "ASOF_LLM_TIMEOUT": ("llm_timeout_s", float),
    "ASOF_DBT_VENV": ("dbt_venv", Path),
    "ASOF_DBT_PROJECT": ("dbt_project", Path),
    "ASOF_MF_TIMEOUT": ("mf_timeout_s", float),
    "ASOF_MCP_PRINCIPAL": ("mcp_principal", str),
    "ASOF_MCP_ROLE": ("mcp_role", str),
    "ASOF_MCP_TOKENS": ("mcp_tokens", str),
}

class Settings(BaseModel):
    db_path: Path = REPO_ROOT / "data" / "build" / "demo.duckdb"
    # ASOF_DB=s3://bucket/prefix: a replica of a catalog published to object storage (core/serve/replica.py).
    # Then db_path is only where this replica keeps its own files (the audit log, the explanation cache,
    # downloaded revisions): ASOF_REPLICA_DIR, one per replica process, since each appends its own audit chain.
    catalog_url: str | None = None
    poll_s: float = 1.0  # ASOF_POLL_SECONDS: how often a replica reads CURRENT
    demo_catalog: Path = REPO_ROOT / "data" / "demo"
    # The warehouse metric values are computed on (scripts/build_warehouse.py builds the demo's); opened read-only.
    warehouse_path: Path = REPO_ROOT / "data" / "build" / "warehouse.duckdb"
    value_timeout_s: float = 10.0
    # A sentence-transformers folder or name; None = the packaged all-MiniLM-L6-v2 weights.
    embed_model: str | None = None
    # Any litellm model id ("openai/gpt-4o-mini", "ollama/llama3.1", ...); None = deterministic explanations.
    llm_model: str | None = None
    llm_timeout_s: float = 30.0
    # Who may use which role: demo (chosen freely), header (trusted proxy), oidc (st.login). See core/settings/auth.py.
    auth: AuthSettings = Field(default_factory=AuthSettings)
    # MCP server (`python -m core mcp`): the principal a stdio server runs as, optionally one of its roles,
    # and the hashed bearer-token file an HTTP server checks.
    mcp_principal: str | None = None
    mcp_role: str | None = None
    mcp_tokens: Path | None = None
    # The Audit page shows other principals' question text only when this is on (ASOF_AUDIT_SHOW_QUESTIONS=1).
    audit_show_questions: bool = False
    # The dbt toolchain that computes dbt metric values (`dbt`, `mf`; core/ingest/metricflow.py): its own venv,
    # made by scripts/setup.sh, run as subprocesses. ASOF_DBT_VENV, ASOF_MF_TIMEOUT (seconds per command).
    dbt_venv: Path = REPO_ROOT / ".venv-dbt"
    mf_timeout_s: float = 180.0
    # The dbt project whose metric values MetricFlow computes (core/compute/choose.py). Unset: the parent of the
    # target/ folder the latest dbt ingest read. ASOF_DBT_PROJECT.
    dbt_project: Path | None = None

    @property
    def catalog(self) -> str:
        """What the live catalog is read from: the object-storage URL, else the database file."""
        return self.catalog_url or str(self.db_path)

    @property
    def revisions_dir(self) -> Path:
        """A replica's downloaded revisions."""
        return self.db_path.parent / "revisions"

    @classmethod
    def from_env(cls) -> "Settings":
        values = {}
        db = os.environ.get("ASOF_DB")
        if is_object_url(db):
            where = ObjectLocation.parse(db)
            values["catalog_url"] = where.url
            default = REPO_ROOT / "data" / "build" / "replica" / where.key().replace("/", "--")
            values["db_path"] = Path(os.environ.get("ASOF_REPLICA_DIR") or default) / "replica.duckdb"
        elif db:
            values["db_path"] = Path(db)
        for var, (field, read) in _FROM_ENV.items():
            if os.environ.get(var):
                values[field] = read(os.environ[var])
        values["auth"] = _auth_from_env()
        values["audit_show_questions"] = os.environ.get("ASOF_AUDIT_SHOW_QUESTIONS", "") in ("1", "true", "yes")
        return cls(**values)


def _auth_from_env() -> AuthSettings:
    env = os.environ
    values: dict = {"mode": env.get("ASOF_AUTH") or "demo",
                    "forwarded_allow_ips": env.get("FORWARDED_ALLOW_IPS", UVICORN_DEFAULT_FORWARDED)}
    if env.get("ASOF_AUTH_HEADER"):
        values["header"] = env["ASOF_AUTH_HEADER"]
    if env.get("ASOF_TRUSTED_PROXIES"):
        values["trusted_proxies"] = [x.strip() for x in env["ASOF_TRUSTED_PROXIES"].split(",") if x.strip()]
    if env.get("ASOF_AUTH_EMAIL_DOMAIN"):
        values["email_domain"] = env["ASOF_AUTH_EMAIL_DOMAIN"]
    if env.get("ASOF_OIDC_CLAIM"):
        values["oidc_claim"] = env["ASOF_OIDC_CLAIM"]
    try:
        return AuthSettings(**values)
    except ValueError as exc:  # pydantic's ValidationError: name the variables, not the model fields
        raise ValueError(f"bad identity settings (ASOF_AUTH, ASOF_AUTH_HEADER, ASOF_TRUSTED_PROXIES, "
                         f"ASOF_AUTH_EMAIL_DOMAIN, ASOF_OIDC_CLAIM): {exc}") from None
