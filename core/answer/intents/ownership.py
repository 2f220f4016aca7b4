"""Owner: who owns an entity, read from `owner` of the version governing on the reporting date (else today).

With no approved version, the owner recorded on the latest visible object is given and labelled as coming
from a draft or non-authoritative object. Owners of other versions are listed when they differ.
"""
from __future__ import annotations

from dataclasses import replace
from datetime import date

from core.answer.intents.discover import summary
from core.answer.run import entity_on_day, not_found
from core.catalog.envelope import Behavior, Envelope, EvidenceRef, Ownership
from core.catalog.evidence import Evidence
from core.resolve.versions import in_effect, interval_text, version_name


def _or_document(pick):
    """"who owns the board memo": a visible document named by its title has an owner too. Only when no
    metric, model or source is named (those come first); only documents the role may read."""
    def picked(run):
        got = pick(run)
        if not (isinstance(got, Envelope) and got.behavior is Behavior.not_found_or_not_authorized):
            return got
        ents = run.view.entities
        matches, toks = run.reading.match_entities(ents, run.view.phrases)
        docs = {m.entity_id for m in matches if ents[m.entity_id].role == "document"}
        if len(docs) != 1:
            return got
        (doc,) = docs
        run.trace[:] = [t for t in run.trace if t.rule != "entity"]
        run.step("entity", f"{doc} (document) named in the question")
        return ents[doc], [m for m in matches if m.entity_id == doc], toks
    return picked


def owned_by(label: str, source: Evidence, from_draft: bool = False) -> str:
    """The owner sentence an answer to more than the owner leads with ("what is X and who owns it", "who owns X and
    what changed in it"): the owner and the object it is recorded on, or that none is recorded."""
    if not source.owner:
        return f"No owner is recorded for {label}."
    where = f"{source.evidence_id}, a draft, not an approved version" if from_draft else source.evidence_id
    return f"{label} is owned by {source.owner} ({where})."


def record(primary, day: date, objs: list[Evidence], versions: list[Evidence], when: str):
    """Whose the entity is, read from what the role can see: the version in effect on `day`, else the latest approved
    version, else the latest visible object (a draft's owner, said to be one). Returns (Ownership, the object it is
    recorded on, how that object was chosen), or None when the role sees nothing of it."""
    now = in_effect(versions, day)
    if primary.role == "document" and objs:
        # A document is not versioned like a definition: its owner is the one it records.
        source = sorted(objs, key=lambda o: (o.valid_from or date.min, o.evidence_id))[-1]
        from_draft = source.lifecycle.value == "draft"
        how = f"{source.title} ({source.authority.value.replace('_', '-')}, {source.lifecycle.value})"
    elif now:
        source, from_draft = now[-1], False
        how = f"{version_name(source)}, the version in effect {when}"
    elif versions:
        source, from_draft = versions[-1], False
        how = f"{version_name(source)}, the latest approved version (none is in effect {when}; it is in effect {interval_text(source)})"
    elif objs:
        source, from_draft = sorted(objs, key=lambda o: (o.valid_from or date.min, o.evidence_id))[-1], True
        how = f"{source.title}, a {source.lifecycle.value} {source.authority.value.replace('_', '-')} object (there is no approved version)"
    else:
        return None
    history = versions or [source]
    ownership = Ownership(entity_id=primary.entity_id, owner=source.owner, evidence_id=source.evidence_id,
                          version=source.version, from_draft=from_draft, history=[summary(v, day) for v in history],
                          owners_by_version={v.evidence_id: v.owner for v in history})
    return ownership, source, how


def answer(run, pick) -> Envelope:
    read = entity_on_day(run, _or_document(pick))
    if isinstance(read, Envelope):
        return read
    primary, day, objs, versions = read
    kw = dict(intent="owner", entity_id=primary.entity_id, entity_label=primary.label)
    when = f"on {day}" if run.day or run.period else f"today ({day})"
    recorded = record(primary, day, objs, versions, when)
    if recorded is None:
        return not_found(run)
    ownership, source, how = recorded
    if primary.role == "document":
        kw["entity_label"] = source.title
        primary = replace(primary, label=source.title)
    run.step("owner", f"owner of {source.evidence_id}: {source.owner or 'not recorded'}")
    others = sorted({o for o in ownership.owners_by_version.values() if o and o != source.owner})
    if source.owner:
        verdict = f"{primary.label} is owned by {source.owner}, as recorded on {how}."
        if others:
            verdict += f" Other versions record: {', '.join(others)}."
        behavior = Behavior.answer
    else:
        verdict = f"No owner is recorded for {primary.label} on {how}."
        behavior = Behavior.abstain
    selected = [] if ownership.from_draft else [EvidenceRef.of(source, "owner")]
    return run.envelope(behavior, verdict, selected=selected, ownership=ownership, **kw)
