"""The question bank (tests/questions/*.yaml): questions typed the way analysts type, each with its gold.

Each question is asked through `ask` with the catalog's search index, exactly as the CLI does, and
passes when the behavior is one of the gold ones, the answer is about the gold entity, every gold
governing id is selected, and no forbidden id appears anywhere in the envelope or its text. Every
object hidden from the asking role is forbidden, whatever the question's own list says.

The bank is split once, at random with the recorded SPLIT_SEED, into a tuning half (thresholds in
core/read/names/ranker.py are calibrated on it) and a check half (reported, never tuned on). The split of a
question depends only on the seed and the question's own id and text, so adding questions never
moves old ones between halves. A file that declares `split: heldout` (tests/questions/heldout_*.yaml)
is a third part: questions written by someone who had not read the ranker, committed before the
system was first run on them, and reported in their own column.
"""
from __future__ import annotations

import datetime as dt
import hashlib
import re
import tempfile
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field

from core.answer.ask import Question
from core.answer.intents.review import review_queue
from core.answer.steward import steward_answer
from core.catalog.envelope import Envelope
from core.catalog.evidence import Catalog, CatalogSettings
from core.explain.render import render_text

REPO = Path(__file__).resolve().parents[2]
BANK = REPO / "tests" / "questions"
BANK_AT = datetime(2026, 11, 29, 12, tzinfo=timezone.utc)  # "now" for a file that names no `at`
SPLIT_SEED = 20261130
# Families whose intents are built on another branch (`intents`): reported apart, not gated here.
PENDING_FAMILIES = {"discover", "compare", "owner", "downstream", "document", "upcoming"}
REALWORLD = REPO / "tests" / "fixtures" / "realworld"


class Gold(BaseModel):
    model_config = ConfigDict(extra="forbid")
    q: str
    fam: str
    behavior: list[str]
    role: str
    entity: str | None = None
    governs: list[str] = Field(default_factory=list)
    forbidden: list[str] = Field(default_factory=list)
    date: dt.date | None = None
    id: str = ""
    catalog: str = ""
    at: datetime | None = None
    # When freshness must be evaluated, for a question whose own words name that time.
    evaluated: datetime | None = None
    half: Literal["heldout"] | None = None  # from the file's `split:`; else the seeded tuning/check split
    # What a user would notice beyond the entity: which kind of answer it was ("tests", "columns", "downstream")
    # and words its headline must say (a test's name, a display name), case-insensitively.
    intent: str | None = None
    says: list[str] = Field(default_factory=list)
    never_says: list[str] = Field(default_factory=list)  # words nowhere in the answer (another version's description)

    @property
    def split(self) -> str:
        if self.half:
            return self.half
        digest = hashlib.sha256(f"{SPLIT_SEED}:{self.id}:{self.q}".encode()).digest()
        return "tuning" if digest[0] % 2 == 0 else "check"

    @property
    def pending(self) -> bool:
        return self.fam in PENDING_FAMILIES


def load_bank(folder: Path = BANK) -> list[Gold]:
    out: list[Gold] = []
    for path in sorted(folder.glob("*.yaml")):
        doc = yaml.safe_load(path.read_text())
        for n, row in enumerate(doc["questions"], 1):
            row = dict(row)
            beh = row.pop("behavior")
            row.setdefault("role", doc.get("role"))
            try:
                out.append(Gold(**row, behavior=beh if isinstance(beh, list) else [beh], id=f"{path.stem}:{n}",
                                catalog=doc["catalog"], at=doc.get("at"), half=doc.get("split")))
            except Exception as exc:  # name the file and the question
                raise ValueError(f"{path.name} question {n}: {exc}") from exc
    return out


# ---- catalogs ------------------------------------------------------------------------------------

def _dbt(name: str, folder: Path = REALWORLD):
    def read(db: Path) -> Catalog:
        from core.ingest.ingest import read_inputs
        catalog, _ = read_inputs(db, dbt=folder / name, overlay=REPO / "data" / "dbt" / f"{name}.overlay.yml")
        return catalog
    return read


def _file(path: Path, **settings):
    def read(db: Path) -> Catalog:
        from core.ingest.load import load_catalog
        catalog = load_catalog(path)
        if settings:
            catalog = catalog.model_copy(update={"settings": CatalogSettings(**settings)})
        return catalog
    return read


CATALOGS = {
    "demo": _file(REPO / "data" / "demo"),
    "demo_fy7": _file(REPO / "data" / "demo", fiscal_year_start_month=7),
    "suite_a": _file(REPO / "tests" / "suites" / "suite_a.catalog.json"),
    "suite_b": _file(REPO / "tests" / "suites" / "suite_b.catalog.json"),
    "jaffle-shop": _dbt("jaffle-shop"),
    "jaffle-sl-template": _dbt("jaffle-sl-template"),
    "dbt-project-evaluator-versions": _dbt("dbt-project-evaluator-versions"),
    "acme-analytics": _dbt("acme-analytics", REPO / "tests" / "fixtures" / "generated"),
    # A small research-style catalog with other names, roles and dates (a role that sees a single memo).
    "tidewater": _file(REPO / "tests" / "fixtures" / "trust" / "tidewater.catalog.yaml"),
    # A hospital network (issue 39): month ranges, times in words, sources named by what they hold, untrusted notes.
    "northgate": _file(REPO / "tests" / "fixtures" / "read" / "northgate.catalog.yaml"),
}


@dataclass
class Loaded:
    store: object
    searcher: object
    hidden: dict[str, set[str]]  # role -> evidence ids it may not see


def load_catalogs(names: set[str], workdir: Path, embedder, built: dict | None = None,
                  no_index: frozenset[str] = frozenset()) -> dict[str, Loaded]:
    """Each catalog written once, with its search index, like `python -m core ingest`. `built` maps a
    name to an already ingested (store, searcher) (the test session's demo and suites). Catalogs in
    `no_index` are asked catalog-only, without a search index (the test suite's budget for the
    1,000-model project; `eval --questions` indexes every catalog)."""
    import shutil

    from core.catalog.store import Store, write_catalog
    from core.retrieve.index import index_path
    from core.retrieve.search import Searcher
    from core.retrieve.writer import build_index
    built = built or {}
    out = {}
    for name in sorted(names, key=lambda n: (n == "demo_fy7", n)):  # the fiscal demo reuses the demo's index
        db = workdir / f"{name}.duckdb"
        catalog = CATALOGS[name](db)
        # A steward reads its review queue too (core/answer/steward.py): those objects are not hidden from it.
        queue = {i for item in review_queue(catalog.evidence, BANK_AT.date()) for i in item.evidence_ids}
        stewards = {r.name for r in catalog.roles if r.steward}
        hidden = {r: {e.evidence_id for e in catalog.evidence
                      if r not in e.acl and not (r in stewards and e.evidence_id in queue)} for r in catalog.role_names}
        if name in built:
            out[name] = Loaded(*built[name], hidden)
            continue
        write_catalog(catalog, db)
        if name in no_index:
            out[name] = Loaded(Store(db), None, hidden)
            continue
        demo = out.get("demo")
        if name == "demo_fy7" and demo and index_path(demo.store.path).exists():
            shutil.copytree(index_path(demo.store.path), index_path(db))  # same objects, other settings
        else:
            build_index(catalog, db, embedder, quiet=True)
        store = Store(db)
        out[name] = Loaded(store, Searcher(store, embedder), hidden)
    return out


# ---- asking and judging --------------------------------------------------------------------------

@dataclass
class Outcome:
    gold: Gold
    ok: bool
    behavior: str
    entity: str | None
    leaked: list[str] = field(default_factory=list)
    why: str = ""


def _mentions(text: str, ids) -> list[str]:
    return sorted(i for i in ids if re.search(r"(?<![\w.])" + re.escape(i) + r"(?![\w])", text))


def judge(g: Gold, env: Envelope, hidden: set[str]) -> Outcome:
    text = env.model_dump_json() + "\n" + render_text(env)
    leaked = _mentions(text, set(g.forbidden) | hidden)
    # A document answer's evidence is the document itself (it never governs a definition): it counts as selected.
    selected = ({s.evidence_id for s in env.selected} | {s.evidence_id for sp in env.splits for s in sp.selected}
                | {d.evidence_id for d in env.documents})
    why = []
    if env.behavior.value not in g.behavior:
        why.append(f"behavior {env.behavior.value}, expected {'/'.join(g.behavior)}")
    if g.entity and env.behavior.value not in ("clarify", "not_found_or_not_authorized", "refuse") \
            and env.entity_id != g.entity:
        why.append(f"entity {env.entity_id}, expected {g.entity}")
    missing = [i for i in g.governs if i not in selected]
    if missing and env.behavior.value in g.behavior:
        why.append("not selected: " + ", ".join(missing))
    if g.intent and env.behavior.value in g.behavior and env.intent != g.intent:
        why.append(f"intent {env.intent}, expected {g.intent}")
    unsaid = [w for w in g.says if w.lower() not in env.verdict.lower()]
    if unsaid and env.behavior.value in g.behavior:
        why.append("headline does not say: " + ", ".join(unsaid))
    said = [w for w in g.never_says if w.lower() in text.lower()]
    if said:
        why.append("the answer says: " + ", ".join(said))
    if g.evaluated and env.evaluated_at != g.evaluated:
        why.append(f"evaluated at {env.evaluated_at.isoformat()}, expected {g.evaluated.isoformat()}")
    if leaked:
        why.append("forbidden ids in output: " + ", ".join(leaked))
    return Outcome(g, not why, env.behavior.value, env.entity_id, leaked, "; ".join(why))


def run_bank(bank: list[Gold], catalogs: dict[str, Loaded]) -> list[Outcome]:
    out = []
    for g in bank:
        c = catalogs[g.catalog]
        at = g.at or BANK_AT
        # The file's `at` is "now" (like the CLI's clock), not a form value: a timestamp in the text may set it.
        # Asked as every surface asks: a steward's view widened to its review queue, any other role's its own.
        env, _ = steward_answer(c.store, Question(role=g.role, text=g.q, day=g.date), searcher=c.searcher,
                                today=BANK_AT.date(), now=at)
        out.append(judge(g, env, c.hidden.get(g.role, set())))
    return out


def evaluate_bank(embedder=None, folder: Path = BANK) -> list[Outcome]:
    from core.retrieve.embed import Embedder
    bank = load_bank(folder)
    with tempfile.TemporaryDirectory(prefix="asof-bank-") as tmp:
        catalogs = load_catalogs({g.catalog for g in bank}, Path(tmp), embedder or Embedder())
        try:
            return run_bank(bank, catalogs)
        finally:
            for c in catalogs.values():
                c.store.close()


def family_table(outcomes: list[Outcome]) -> str:
    """Per family: passed/total in each half (tuning, check, and held-out when the bank has one), and
    forbidden ids found. Pending families last."""
    fams = sorted({o.gold.fam for o in outcomes}, key=lambda f: (f in PENDING_FAMILIES, f))
    halves = ["tuning", "check"] + (["heldout"] if any(o.gold.split == "heldout" for o in outcomes) else [])
    heads = {"tuning": "tuning", "check": "check", "heldout": "held-out"}

    def cell(rows):
        if not rows:
            return "-"
        ok = sum(o.ok for o in rows)
        return f"{ok}/{len(rows)} ({100 * ok / len(rows):.0f}%)"

    def row(name, rows):
        cells = " | ".join(cell([o for o in rows if o.gold.split == h]) for h in halves)
        return f"| {name} | {cells} | {sum(len(o.leaked) for o in rows)} |"

    lines = ["| family | " + " | ".join(heads[h] for h in halves) + " | forbidden ids |",
             "|---" * (len(halves) + 2) + "|"]
    for f in fams:
        name = f + (" (intent, outside the 97% gate)" if f in PENDING_FAMILIES else "")
        lines.append(row(name, [o for o in outcomes if o.gold.fam == f]))
    lines.append(row("**all implemented**", [o for o in outcomes if not o.gold.pending]))
    pend = [o for o in outcomes if o.gold.pending]
    if pend:
        lines.append(row("all intents (outside the gate)", pend))
    lines.append(f"\n{len(outcomes)} questions over {len({o.gold.catalog for o in outcomes})} catalogs; "
                 f"split seed {SPLIT_SEED}.")
    return "\n".join(lines)
