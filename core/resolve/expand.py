"""The chosen version expanded: its backing model (every input metric's, and the one taking over inside a period),
upstream lineage and column lineage over the role's view, and the freshness of its raw sources at the evaluation
time; and the documents the question names beside it, which are conflict evidence, never governing."""
from __future__ import annotations

from datetime import date, timedelta

from core.catalog.entities import Entity, Match
from core.catalog.envelope import EvidenceRef, Lineage
from core.catalog.evidence import Evidence
from core.catalog.text import tokenize
from core.resolve import lineage as lineage_mod
from core.resolve.columns import trace_column
from core.resolve.freshness import source_freshness
from core.resolve.run import Run as _Run
from core.resolve.versions import (
    backing_model,
    backing_models,
    by_version,
    governing_versions,
    interval_text,
    last_day,
    version_name,
)

LINEAGE_CUT = ("Lineage continues beyond what your role may see: the chain shown stops there, and the nodes "
              "where it stops are not raw sources.")


def _expand(run: _Run, chosen: Evidence, primary: Entity, requested: dict[str, str],
            extra: list[Evidence], day: date | None):
    """Backing model, lineage and freshness for the chosen version."""
    day = day or chosen.valid_from
    aspects = run.intent.aspects
    selected = [EvidenceRef.of(chosen, "definition")]
    starts = [chosen.evidence_id]
    if primary.role == "metric":
        model, why = backing_model(chosen, day, run.view)
        run.step("backing model", f"{model.evidence_id}: {why}" if model else why)
        if model:
            selected.append(EvidenceRef.of(model, "model"))
            starts.append(model.evidence_id)
            # A derived or ratio metric reads every input metric's model: list each, lineage from each.
            for other in backing_models(chosen, day, run.view):
                if other.evidence_id not in starts:
                    selected.append(EvidenceRef.of(other, "model"))
                    starts.append(other.evidence_id)
            if run.period:
                # One definition for the whole period, but the model behind it may change inside it: the numbers
                # then come from both, and the answer says when.
                later, _ = backing_model(chosen, run.period[1] - timedelta(days=1), run.view)
                if later and later.evidence_id not in starts:
                    selected.append(EvidenceRef.of(later, "model"))
                    starts.append(later.evidence_id)
                    run.notes.append(f"The model behind {primary.label} changes inside this period: "
                                     f"{model.title} until {last_day(model) if model.valid_to else 'its end'}, "
                                     f"then {later.title} from {later.valid_from}.")
                    run.step("backing model", f"{later.evidence_id} backs the end of the period")
            label = requested.get(model.entity_id)
            if label and (model.version or "").lstrip("vV") != label.lstrip("vV"):
                asked_for = by_version(governing_versions(run.view.entity_objects(model.entity_id), "model"), label)
                if asked_for:
                    extra.append(asked_for)
                run.notes.append(f"You asked about model version {label}, but the version backing "
                                 f"{version_name(chosen)} on {day} is {version_name(model)}"
                                 + (f" ({version_name(asked_for)} is in effect {interval_text(asked_for)})."
                                    if asked_for else "."))
                run.step("version request", f"model version {label} requested; {model.evidence_id} applies")
    missing = ""
    lineage = Lineage()
    if primary.role in ("metric", "model", "source"):
        lineage = lineage_mod.upstream(run.view, starts, day)
        used = list(dict.fromkeys(e.evidence_id for e in lineage.edges))
        selected += [EvidenceRef.of(e, "lineage") for e in run.view.by_ids(used) if e.evidence_id in used]
        run.step("lineage", f"{len(lineage.edges)} upstream edge(s) from {', '.join(starts)} via "
                 f"{', '.join(used) or 'no lineage evidence'}; raw sources: {', '.join(lineage.raw_sources) or 'none'}"
                 + (f"; generated in the project: {', '.join(lineage.generated)}" if lineage.generated else ""))
        if lineage.continues_beyond_view:
            run.notes.append(LINEAGE_CUT)
        if "lineage" in aspects and primary.role != "source" and not lineage.edges and not lineage.continues_beyond_view:
            missing = "no lineage evidence is recorded for it"
        if run.intent.column:
            run.columns = trace_column(run.view, lineage, starts, run.intent.column, day)
            run.step("column lineage", run.columns.detail)
    sources = [primary.entity_id] if primary.role == "source" else lineage.raw_sources
    fresh = [f for f in (source_freshness(s, run.view.freshness_objects(s), run.at, day or run.at.date())
                         for s in sources) if f]
    if fresh:
        run.step("freshness", "; ".join(f"{f.source}: {f.status}" + (f" ({f.age_hours} h old)" if f.age_hours is not None else "")
                                        for f in fresh) + f" at {run.at.isoformat()}")
    if "freshness_status" in aspects and not any(f.loaded_at for f in fresh):
        missing = missing or (f"no load time is recorded at or before the evaluation time {run.at.isoformat()}, so its "
                              "freshness is unknown (never reported as fresh)")
    return selected, lineage, fresh, missing


def _named_documents(run: _Run, entities: dict[str, Entity], matches: list[Match], primary: Entity) -> list[Evidence]:
    """Documents the question names: by title, or by a document word ('the wiki', 'the draft', 'the note')."""
    named_entities = sorted({m.entity_id for m in matches if entities[m.entity_id].role == "document"})
    out = {e.evidence_id: e for ent in named_entities for e in run.view.entity_objects(ent)}
    nouns = run.intent.doc_nouns
    if nouns:
        for e in run.view.documents_about(primary.entity_id):
            words = {t.norm for t in tokenize(f"{e.title} {e.kind.value} {e.lifecycle.value} {e.authority_class or ''}")}
            if nouns & words:
                out.setdefault(e.evidence_id, e)
    if out:
        run.step("conflict evidence", "named in the question: " + ", ".join(out))
    return list(out.values())
