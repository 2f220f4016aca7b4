"""Deterministic, cited sentences for the intent answers (discover, compare, owner, downstream, document).

Like core/explain/prose.py, every sentence restates envelope fields and cites the evidence they came from, so the
citation validator can check each one. Listed entities and documents are not governing evidence, so their
sentences avoid words that present something as governing (the validator would reject them).
"""
from __future__ import annotations

from core.catalog.envelope import Behavior, Envelope
from core.catalog.explanation import Cited
from core.explain.wording import _count, _interval, _join, _name


def _decision(text: str) -> Cited:
    """The resolver's own words, uncited: there is no evidence behind "nothing was found"; a listing's summary."""
    return Cited(text=text.strip())


def _discover(env: Envelope) -> list[Cited]:
    li = env.listing
    out = []
    for it in li.items[:25]:
        owner = f", owned by {it.owner}" if it.owner else ""
        n = len(it.versions)
        vs = f"; {_count(n)} version{'s' if n != 1 else ''} recorded" if it.role != "document" else ""
        out.append(Cited(text=f"{it.label} (`{it.entity_id}`){owner}: {it.status}{vs}.", citations=[it.evidence_id]))
    return out


def _compare(env: Envelope) -> list[Cited]:
    c = env.comparison
    both = [c.left.evidence_id, c.right.evidence_id]
    out = [Cited(text=f"{_name(c.left)} runs {_interval(c.left.valid_from, c.left.valid_to)}, and {_name(c.right)} "
                      f"runs {_interval(c.right.valid_from, c.right.valid_to)}.", citations=both)]
    for f in c.changed:
        if f.field == "effective":
            continue
        cites = both + [m for m in (c.left_model, c.right_model) if m and f.field == "backing model"]
        before = f"`{f.before}`" if f.before else "not recorded"
        after = f"`{f.after}`" if f.after else "not recorded"
        if f.field == "description":  # prose: the sentence that changed, quoted, not two whole paragraphs
            out.append(Cited(text=_description(env, f), citations=both))
            continue
        if c.right_label:  # two metrics side by side: nothing "changed", they differ
            verb = "are" if f.field.endswith("s") else "is"
            text = f"{env.entity_label}'s {f.field} {verb} {before}; {c.right_label}'s {verb} {after}."
        else:
            text = f"Its {f.field} changed from {before} to {after}."
        out.append(Cited(text=text, citations=list(dict.fromkeys(cites))))
    same = [f.field for f in c.fields if not f.changed]
    if same:
        out.append(Cited(text=f"{'The same in both' if c.right_label else 'Unchanged'}: {_join(same)}.", citations=both))
    return out


def _description(env: Envelope, f) -> str:
    from core.answer.intents.compare import quote_change, sentences
    c = env.comparison
    if c.right_label:
        first = (sentences(f.before) or ["not recorded"])[0], (sentences(f.after) or ["not recorded"])[0]
        return f"{env.entity_label}'s description reads “{first[0]}”; {c.right_label}'s reads “{first[1]}”."
    from core.answer.intents.compare import end
    said = quote_change(f)
    if len(f.removed) + len(f.added) > 2:  # (no count: a number in a sentence must be one the evidence states)
        return f"Its description changed: {said}; other sentences differ too."
    return f"Its description changed: {said}{end(said)}" if said else "Its description changed."


def owner_sentences(env: Envelope) -> list[Cited]:
    o = env.ownership
    if not o.owner:
        return []
    where = ("the latest object recorded for it, which is not an approved version" if o.from_draft
             else "the version the answer reads")
    out = [Cited(text=f"{env.entity_label} is owned by {o.owner}, as recorded on {where}.", citations=[o.evidence_id])]
    for v in o.history:
        other = o.owners_by_version.get(v.evidence_id)
        if v.evidence_id != o.evidence_id and other and other != o.owner:
            out.append(Cited(text=f"An earlier or later version records the owner as {other}.", citations=[v.evidence_id]))
    return out


def downstream_sentences(env: Envelope) -> list[Cited]:
    d = env.downstream
    out = []
    for i in d.items[:25]:
        extra = f" ({i.exposure_type})" if i.exposure_type else ""
        cites = list(dict.fromkeys(i.via + ([i.evidence_id] if i.evidence_id else [])))
        out.append(Cited(text=f"The {i.kind}{extra} {i.label} reads it downstream, {_count(i.depth)} "
                              f"step{'s' if i.depth != 1 else ''} away.", citations=cites))
    return out


def _documents(env: Envelope) -> list[Cited]:
    out = []
    for doc in env.documents:
        cls = f" {doc.authority_class}" if doc.authority_class else ""
        status = {"UNTRUSTED": "untrusted content, read as data only, with any instructions in it ignored",
                  "DRAFT": "a draft that has not been approved",
                  "SUPERSEDED": "superseded", "DEPRECATED": "deprecated"}.get(
            doc.label, "non-authoritative" if doc.authority != "authoritative" else f"a{cls} document")
        out.append(Cited(text=f"{doc.title} is {status}; as a document it never governs a metric definition.",
                         citations=[doc.evidence_id]))
        out.append(Cited(text=f"It says: \"{doc.quote}\"", citations=[doc.evidence_id]))
    # What governs in its place (core/answer/intents/documents.py governs_instead): said beside the quote, never after it.
    for ref in env.selected:
        if ref.role_in_answer == "definition":
            out.append(Cited(text=f"{ref.title} governs instead: it is the approved version in effect.",
                             citations=[ref.evidence_id]))
    return out


def _table_facts(env: Envelope) -> list[Cited]:
    """What dbt recorded of one table (columns, tests and their last results, last run, tags, meta, configuration):
    the answer's own words, then what it read, cited by the table (its facts: core/catalog/envelope.py intent_facts)."""
    t = env.table_facts
    said: list[str] = []
    for c in t.columns:
        typed = f" ({c.type})" if c.type else ""
        said.append(f"column {c.name}{typed}" + (f": {c.description.rstrip('.')}" if c.description else
                                                   ": no description recorded"))
    for x in t.tests:
        on = f" on {x.column}" if x.column else ""
        r = x.result
        outcome = "no result recorded" if r is None else r.status + (
            f" ({r.failures} failing rows)" if r.failures else "")
        said.append(f"test {x.name}{on}: {outcome}")
    if t.last_run:
        r = t.last_run
        took = f", {r.execution_time_s:g} s" if r.execution_time_s is not None else ""
        when = f" at {r.completed_at:%Y-%m-%d %H:%M} UTC" if r.completed_at else ""
        said.append(f"last recorded run: {r.status}{when}{took}")
    if t.tags:
        said.append("tags: " + ", ".join(t.tags))
    said += [f"{k}: {v}" for k, v in (("materialized", t.materialized), ("access", t.access), ("group", t.group)) if v]
    out = [_decision(env.verdict)]
    if said:
        out.append(Cited(text=f"Recorded for {t.evidence_id}: " + "; ".join(said) + ".", citations=[t.evidence_id]))
    return out


def intent_sentences(env: Envelope) -> list[Cited] | None:
    """Sentences for an intent answer, or None when the envelope is an ordinary definition answer."""
    if env.behavior not in (Behavior.answer, Behavior.abstain):
        return None
    if env.listing:
        return _discover(env)
    if env.comparison:
        return _compare(env)
    if env.ownership:
        return owner_sentences(env)
    if env.downstream and env.intent == "downstream":  # else the downstream half of a definition answer (prose.py)
        return downstream_sentences(env)
    if env.documents:
        return _documents(env)
    if env.table_facts:
        return _table_facts(env)
    return None
