"""The deterministic explanation: prose written from the envelope alone, each sentence citing its evidence.

It is the default (no model configured) and the fallback whenever a model's explanation fails the citation
checks. Every claim restates a field the resolver already decided; nothing here chooses anything. Formulas are
quoted verbatim in backticks and counts are spelled out, so each figure in a sentence can be found in the
evidence it cites.
"""
from __future__ import annotations

from datetime import timedelta

from core.catalog.envelope import Behavior, Conflict, Envelope, EvidenceRef, FreshnessEntry
from core.catalog.explanation import Cited
from core.explain.intent_prose import (  # discover, compare, owner, ...
    _decision,
    downstream_sentences,
    intent_sentences,
    owner_sentences,
)
from core.explain.value_headline import loaded_for_period
from core.explain.wording import _count, _interval, _join, _name


def _short(node_id: str) -> str:
    return node_id.split(".", 1)[1] if node_id.startswith(("source.", "model.", "metric.", "node.")) else node_id


def _when(env: Envelope) -> str:
    if env.reporting_date:
        return f"on {env.reporting_date}"
    if env.period_start and env.period_end:
        return f"for {env.period_start} to {env.period_end - timedelta(days=1)}"
    return "with no reporting date given"


def _definition(env: Envelope, d: EvidenceRef) -> list[Cited]:
    owner = f", owned by {d.owner}" if d.owner else ""
    where = f" in {d.source_uri}" if d.source_uri else ""
    how = "it is the version in effect" if env.reporting_date or env.period_start else "it is the only authoritative version"
    out = [Cited(text=f"{_name(d)} is the authoritative definition {_when(env)}{where}{owner}; "
                      f"{how}, {_interval(d.valid_from, d.valid_to)}.", citations=[d.evidence_id])]
    if d.description:
        # Quoted as written at the source (dbt): the stated grain, what it excludes.
        said = " ".join(d.description.split()).rstrip(".")
        out.append(Cited(text=f'Its description says: "{said}."', citations=[d.evidence_id]))
    m = d.metric
    if m:
        parts = [f"It is calculated as `{m.formula}`"]
        if m.grain:
            parts.append(f"at the grain of {m.grain}")
        if m.unit:
            parts.append(f"in {m.unit}")
        text = ", ".join(parts)
        if m.exclusions:
            text += f", and it excludes {_join(m.exclusions)}"
        out.append(Cited(text=text + ".", citations=[d.evidence_id]))
        if m.time_dimension or m.filters:
            bits = []
            if m.time_dimension:
                bits.append(f"dates come from `{m.time_dimension}`")
            if m.filters:
                bits.append(f"rows are filtered by `{'` and `'.join(m.filters)}`")
            text = _join(bits)
            out.append(Cited(text=text[0].upper() + text[1:] + ".", citations=[d.evidence_id]))
    return out


def _model(env: Envelope, mref: EvidenceRef) -> Cited:
    rel = f" (relation `{mref.model.relation}`)" if mref.model and mref.model.relation else ""
    return Cited(text=f"The numbers are produced by {_name(mref)}{rel}, the model version in "
                      f"effect {_interval(mref.valid_from, mref.valid_to)}, not simply the latest one.",
                 citations=[mref.evidence_id])


def _lineage(env: Envelope) -> list[Cited]:
    ids = list(dict.fromkeys(e.evidence_id for e in env.lineage.edges))
    labels = {n.id: n.label for n in env.lineage.nodes}
    out = []
    if env.lineage.generated and ids:
        made = [f"`{labels.get(s, _short(s))}`" for s in env.lineage.generated]
        out.append(Cited(text=f"{_join(made)} {'is' if len(made) == 1 else 'are'} generated inside the project "
                              "with no upstream of its own, so not a raw source.", citations=ids))
    if env.lineage.seeds and ids:
        seeds = [f"`{labels.get(s, _short(s))}`" for s in env.lineage.seeds]
        out.append(Cited(text=f"{_join(seeds)} {'is a seed' if len(seeds) == 1 else 'are seeds'}: "
                              f"{'a CSV file' if len(seeds) == 1 else 'CSV files'} kept in the dbt project and "
                              "loaded by dbt, not a raw source.", citations=ids))
    if not env.lineage.raw_sources:
        return out
    raws = [f"`{labels.get(s, _short(s))}`" for s in env.lineage.raw_sources]
    middle = [n for n in reversed(env.lineage.nodes) if n.kind not in ("source", "metric", "seed")]
    via = f", through {_join([f'`{n.label}`' for n in middle])}" if middle else ""
    noun = "raw source" if len(raws) == 1 else "raw sources"
    return [Cited(text=f"Upstream, its data comes from the {noun} {_join(raws)}{via}.", citations=ids)] + out


def _columns(env: Envelope) -> list[Cited]:
    c = env.columns
    if c is None:
        return []
    labels = {n.id: n.label for n in env.lineage.nodes}
    lineage_ids = list(dict.fromkeys(e.evidence_id for e in env.lineage.edges))
    if c.hops:
        raw = [f"`{labels.get(r.rsplit('.', 1)[0], r.rsplit('.', 1)[0])}.{r.rsplit('.', 1)[1]}`" for r in c.raw_columns]
        via = len({(h.upstream, h.upstream_column) for h in c.hops}) - len(c.raw_columns)
        return [Cited(text=f"Column `{c.column}` of `{labels.get(c.found_in, c.found_in)}` comes from {_join(raw)}"
                           + (f", through {_count(via)} intermediate column{'s' if via > 1 else ''}" if via > 0 else "")
                           + ".",
                      citations=list(dict.fromkeys(h.evidence_id for h in c.hops)))]
    if not lineage_ids:
        return [_decision(c.detail)]
    text = (f"Only table-level lineage is recorded here, so AsOf cannot say which source column {c.column} "
            "comes from; only which tables feed it." if c.table_only else
            f"No column-level lineage records {c.column} in this chain, although other columns have some.")
    return [Cited(text=text, citations=lineage_ids)]


def _freshness(f: FreshnessEntry, complete: frozenset[str] = frozenset()) -> Cited:
    """`complete`: sources loaded after the past period a value was asked for ended (value_headline)."""
    cites = [c for c in (f.evidence_id, f.policy_evidence_id) if c]
    at = f"{f.evaluated_at:%Y-%m-%d %H:%M} UTC"
    src = f"`{_short(f.source)}`"
    if f.status == "unknown" or f.loaded_at is None:
        return Cited(text=f"No load of {src} is recorded as of {at}, so its freshness cannot be judged; treat "
                          "numbers from it with care.", citations=cites)
    head = f"As of {at}, {src} was last loaded at {f.loaded_at:%Y-%m-%d %H:%M} UTC, {f.age_hours} hours earlier"
    if f.status == "pass":
        tail = f"within its {f.warn_after_hours}-hour warning threshold, so it is fresh (pass)"
    elif f.status == "warn":
        tail = (f"past its {f.warn_after_hours}-hour warning threshold but within the {f.error_after_hours}-hour "
                "error threshold, so it is stale (warn) and recent rows may be missing")
    else:
        tail = (f"past its {f.error_after_hours}-hour error threshold, so it fails (error) and figures that "
                "depend on it are likely incomplete")
    if f.status != "pass" and f.source in complete:  # today's news: the past period asked about is all loaded
        tail = (f"past its {f.error_after_hours if f.status == 'error' else f.warn_after_hours}-hour "
                f"{'error' if f.status == 'error' else 'warning'} threshold today, but that load came after the "
                "period asked about ended, so the figures for that period hold every row it needed")
    return Cited(text=f"{head}: {tail}.", citations=cites)


_WHY = {
    "DRAFT": "is a draft that has not been approved, and drafts never govern",
    "SUPERSEDED": "is superseded and is not an authoritative source, so it does not govern",
    "UNTRUSTED": "is untrusted content: it was read as data only, it does not govern, and any instructions "
                 "in it were ignored",
    "NON-AUTHORITATIVE": "is not an authoritative source, so it does not govern",
    "DEPRECATED": "is deprecated and does not govern",
}


def _conflict(env: Envelope, c: Conflict) -> Cited:
    named = ", which your question mentions," if c.named_in_question else ""
    if c.label == "NOT YET IN EFFECT":  # a draft or version that starts after the reporting date
        what = "a draft" if c.lifecycle == "draft" else "a later version"
        why = (f"is {what} that is not yet in effect {_when(env)}: it starts "
               f"{_interval(c.valid_from, c.valid_to)}, so it does not govern")
    elif c.label == "NOT IN EFFECT":
        why = (f"is not in effect {_when(env)} (its interval runs {_interval(c.valid_from, c.valid_to)}), "
               "so it does not govern")
    else:
        why = _WHY.get(c.label, f"does not govern ({c.label.lower()})")
    return Cited(text=f"{_name(c)}{named} {why}.", citations=[c.evidence_id])


def explain_deterministic(env: Envelope) -> list[Cited]:
    out: list[Cited] = []
    definitions = [s for s in env.selected if s.role_in_answer == "definition"]
    models = [s for s in env.selected if s.role_in_answer == "model"]
    special = intent_sentences(env)
    if special is not None and env.comparison and env.ownership:  # "who owns it, and what changed?": the owner first
        special = owner_sentences(env) + special
    # An abstention that still selected a definition (a source whose load time is unknown, a metric without
    # lineage) says why, then cites what it did find: the definition must be cited like any answer's.
    partial = env.behavior in (Behavior.refuse, Behavior.abstain) and definitions
    if special is not None:
        # A list reads best after its one-line summary; the other intents' sentences say it all.
        out += ([_decision(env.verdict)] if env.listing or not special else []) + special
    elif env.behavior is Behavior.answer or partial:
        if partial:
            out.append(_decision(env.verdict))
        for d in definitions:
            out += _definition(env, d)
        out += [_model(env, m) for m in models]
        out += _lineage(env)
        out += _columns(env)
        out += [_freshness(f, loaded_for_period(env)) for f in env.freshness]
        if env.downstream:  # a question that also asks what reads it ("...and what uses it?")
            out += downstream_sentences(env)
    elif env.behavior is Behavior.clarify and env.clarify:
        cites = [o.evidence_id for o in env.clarify.options if o.evidence_id]
        if cites:
            opts = [o.label for o in env.clarify.options]
            out.append(Cited(text=f"There are {_count(len(opts))} authoritative versions and the question does not "
                                  f"say which date it is about: {'; '.join(opts)}.", citations=cites))
            out.append(_decision(env.clarify.question))
        else:
            out.append(_decision(env.clarify.question))
    elif env.behavior is Behavior.split:
        out.append(Cited(text=f"The period {_when(env)[4:]} crosses a change of definition, so each part is "
                              "answered by the version in effect during it.",
                         citations=[s.evidence_id for sp in env.splits for s in sp.selected
                                    if s.role_in_answer == "definition"]))
        for sp in env.splits:
            defs = [s for s in sp.selected if s.role_in_answer == "definition"]
            last = sp.end - timedelta(days=1)
            if defs:
                d = defs[0]
                formula = f", calculated as `{d.metric.formula}`" if d.metric else ""
                out.append(Cited(text=f"From {sp.start} to {last}, {_name(d)} governs{formula}.",
                                 citations=[s.evidence_id for s in sp.selected]))
            else:
                out.append(_decision(sp.verdict))
    elif env.behavior is Behavior.human_review:
        overlap = [s for s in env.selected if s.role_in_answer == "overlap"]
        out.append(Cited(text=f"{_count(len(overlap)).capitalize()} approved definitions are in effect at the same "
                              f"time ({'; '.join(f'{_name(s)} {_interval(s.valid_from, s.valid_to)}' for s in overlap)}), "
                              "so AsOf does not pick one: a governance reviewer must decide which applies.",
                         citations=[s.evidence_id for s in overlap]))
    else:
        out.append(_decision(env.verdict))
    out += [_conflict(env, c) for c in env.conflicts]
    out += [_decision(n) for n in env.notes]
    return [s for s in out if s.text]
