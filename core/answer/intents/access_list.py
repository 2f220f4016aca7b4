"""Who can see it: "who can see the revenue handbook?", "which roles have access to churn?" are answered from the
object's access list (its `acl`), read from the objects the asking view holds, never from what a document says
about itself. Asked of something the view does not hold, the answer is the same not-found as for a made-up name,
so the question tells nothing of hidden objects. A steward reading an object only through its review queue is
told so: the queue is not in the access list."""
from __future__ import annotations

from datetime import date

from core.answer.intents.ownership import _or_document
from core.answer.run import entity_on_day, not_found
from core.catalog.envelope import Behavior, Envelope, EvidenceRef
from core.resolve.versions import version_name


def _roles(names: list[str]) -> str:
    names = sorted(names)
    if len(names) == 1:
        return f"role {names[0]}"
    return "roles " + ", ".join(names[:-1]) + f" and {names[-1]}"


def _said(acl: list[str]) -> str:
    return f"{_roles(acl)} can see it" if acl else "no role can see it"


def _document_first(pick):
    """"who can see the revenue handbook?" asks about the handbook, not the metric it describes: a document the
    view holds, named in the question, comes before the ordinary entity choice (which prefers metrics)."""
    def picked(run):
        ents = run.view.entities
        matches, toks = run.reading.match_entities(ents, run.view.phrases)
        docs = {m.entity_id for m in matches if ents[m.entity_id].role == "document"}
        if len(docs) != 1:
            return _or_document(pick)(run)
        (doc,) = docs
        run.step("entity", f"{doc} (document) named in the question")
        return ents[doc], [m for m in matches if m.entity_id == doc], toks
    return picked


def answer(run, pick) -> Envelope:
    read = entity_on_day(run, _document_first(pick))
    if isinstance(read, Envelope):
        return read
    primary, _, objs, versions = read
    objs = versions or objs or run.view.entity_objects(primary.entity_id)
    if not objs:
        return not_found(run)
    objs = sorted(objs, key=lambda o: (o.valid_from or date.min, o.evidence_id))
    label = objs[-1].title if primary.role == "document" else primary.label
    groups: dict[tuple[str, ...], list] = {}
    for o in objs:
        groups.setdefault(tuple(sorted(o.acl)), []).append(o)
    if len(groups) == 1:
        acl = list(next(iter(groups)))
        verdict = f"{label}: {_said(acl)} ({'its access list' if acl else 'its access list is empty'})."
    else:  # versions shared differently: each version's own list
        verdict = f"{label}: " + "; ".join(
            f"{', '.join(version_name(o) or o.title for o in group)}: {_said(list(acl))}"
            for acl, group in groups.items()) + " (their access lists)."
    queued = [o for o in objs if run.q.role not in o.acl]
    if queued:  # only a steward's review queue grants an object outside the role's own list
        verdict += (f" Your role {run.q.role} is not on it: you see {'it' if len(queued) == len(objs) else 'part of it'} "
                    "only through your review queue, read-only.")
    for o in objs:
        run.step("access", f"{o.evidence_id}: acl {sorted(o.acl) or 'empty'}")
    return run.envelope(Behavior.answer, verdict, intent="access", entity_id=primary.entity_id, entity_label=label,
                        selected=[EvidenceRef.of(o, "access") for o in objs])
