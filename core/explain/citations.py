"""The citation validator: pure code that decides whether an explanation may be shown.

A sentence is checked against the evidence it cites, never against the model's word:
  - every cited id is in the envelope and the requester may see it;
  - a sentence that presents something as governing cites governing evidence (in effect on the reporting date),
    never a draft, superseded, untrusted or out-of-date object, and names no other version than it cites;
  - a conflicting object is cited only where the sentence labels it (draft, superseded, untrusted, ...);
  - every number, date, quoted formula or expression in a sentence appears in the evidence it cites;
  - no sentence repeats untrusted text unless it labels it, nor includes what the definition excludes;
  - a sentence without citations must be the resolver's own words (its verdict, question or notes);
  - no sentence carries markup (Markdown images or links, HTML, Streamlit badges/colors), control characters
    or ANSI escapes, or a URL that is not in the evidence it cites: explanation text is shown as text.
Then the explanation as a whole must still answer: the governing evidence is cited and every conflict disclosed.
"""
from __future__ import annotations

import re
from datetime import timedelta

from core.catalog.envelope import Behavior, Envelope, intent_facts
from core.catalog.explanation import Cited, Problem, Validation

LABEL_WORDS = {
    "DRAFT": r"draft|proposal|proposed|not (?:been )?approved|unapproved",
    "SUPERSEDED": r"supersed\w*|replaced|outdated|obsolete|old\b",
    "UNTRUSTED": r"untrusted|not trusted|unverified|ignored",
    "NON-AUTHORITATIVE": r"not (?:an )?authoritative|non-authoritative|unofficial|informal",
    "NOT IN EFFECT": r"not in effect|no longer|not yet|expired|earlier version|later version|does not apply",
    "DEPRECATED": r"deprecated|retired",
    "NOT YET IN EFFECT": r"not yet|later version|upcoming|starts? (?:on|from)",
}
_GOVERNS = re.compile(r"\b(govern(?:s|ing|ed)?|authoritative|official|appl(?:y|ies)|in effect|defined as|"
                      r"calculated as|computed as|measured as|defin(?:es|ed))\b", re.I)
# A sentence that also says what does not govern is a contrast ("the draft defines it differently, but does
# not govern"), not a claim.
_DISCLAIMS = re.compile(r"\b(?:does not|doesn't|do not|never|cannot) govern|not in effect|not (?:an )?authoritative|"
                        r"not (?:been )?approved|were ignored|was ignored", re.I)
_NEGATOR = re.compile(r"\b(not|never|no longer|nor|non|n't|isn't|doesn't|don't|aren't|cannot)\W+(?:\w+\W+)?$", re.I)
_VERSION = re.compile(r"(?<![\w.-])(?:v|version\s+)(\d[\w.-]*)", re.I)
_DATE = re.compile(r"\b\d{4}-\d{2}-\d{2}\b")
_TIME = re.compile(r"\b\d{1,2}:\d{2}(?::\d{2})?\b")
_NUMBER_TOKEN = re.compile(r"^(\d+(?:\.\d+)?)(?:-[a-z]+)?$", re.I)
_NUMBER = re.compile(r"\d+(?:\.\d+)?")
_TICKS = re.compile(r"`([^`]+)`")
_EXPRESSION = re.compile(r"\b[a-z_][\w.]*\([^)]*\)|\b[a-z_][\w.]*\s[-+*/]\s[a-z_(][\w.]*", re.I)
_WORD = re.compile(r"[a-z0-9]+")
# Markup a model could slip into the page: an image makes every viewer's browser fetch a URL, a link sends
# people elsewhere, HTML and Streamlit directives draw badges and colors that look like the app's verdict.
# Checked outside code spans (Markdown renders those literally; formulas live there).
_MARKUP = (
    ("a Markdown image", re.compile(r"!\[[^\]]*\]\s*[(\[]")),
    ("a Markdown link", re.compile(r"\[[^\]]*\]\s*\(|\[[^\]]*\]\s*\[[^\]]*\]|^\s*\[[^\]]+\]:", re.M)),
    ("an autolink", re.compile(r"<[a-z][a-z0-9+.-]*:[^<>\s]*>", re.I)),
    ("HTML", re.compile(r"</?[a-z][a-z0-9-]*(?:[\s/][^<>]*)?>|<!--|&#?[a-z0-9]+;", re.I)),
    ("a Streamlit badge or color", re.compile(r":[a-z][a-z0-9]*(?:-[a-z0-9]+)*\[|:material/[a-z0-9_]+:", re.I)),
)
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_URL = re.compile(r"\b(?:https?|ftp|file)://[^\s<>()\[\]`'\"]+|\bwww\.[^\s<>()\[\]`'\"]+"
                  r"|\b(?:mailto|javascript|data|vbscript):[^\s<>()\[\]`'\"]+", re.I)


def _norm(text: str) -> str:
    return " ".join(text.lower().replace("`", "").split())


def _num(value: str) -> str:
    return format(float(value), "g")


def _words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def _runs(words: list[str], n: int = 5) -> set[tuple[str, ...]]:
    return {tuple(words[i:i + n]) for i in range(len(words) - n + 1)}


class _Facts:
    """What the envelope says about each id: the text a sentence citing it may draw on."""

    def __init__(self, env: Envelope):
        self.env = env
        self.text: dict[str, list[str]] = {}
        self.governing: set[str] = set()
        self.conflicts = {c.evidence_id: c for c in env.conflicts}
        self.intervals: dict[str, tuple] = {}
        refs = list(env.selected) + [s for sp in env.splits for s in sp.selected]
        for r in refs:
            parts = [r.evidence_id, r.entity_id, r.title, r.version or "", r.text, r.owner or "", r.source_uri or "",
                     r.source_revision or "", r.authority, r.lifecycle, r.authority_class or ""]
            if r.metric:
                m = r.metric
                parts += [m.formula, m.grain or "", m.unit or "", m.time_dimension or "", *m.filters, *m.exclusions]
            if r.model:
                parts += [r.model.relation or "", r.model.grain or "", *r.model.primary_key, *r.model.columns]
            parts += self._dates(r.valid_from, r.valid_to)
            self._add(r.evidence_id, parts)
            self.governing.add(r.evidence_id)
            self.intervals[r.evidence_id] = (r.valid_from, r.valid_to)
        for c in env.conflicts:
            self._add(c.evidence_id, [c.evidence_id, c.entity_id, c.title, c.version or "", c.text, c.why,
                                      *self._dates(c.valid_from, c.valid_to)])
            self.intervals[c.evidence_id] = (c.valid_from, c.valid_to)
        for e in env.lineage.edges:
            labels = [n.label for n in env.lineage.nodes if n.id in (e.upstream, e.downstream)]
            self._add(e.evidence_id, [e.upstream, e.downstream, *labels])
        labels = {n.id: n.label for n in env.lineage.nodes}
        if env.columns:
            for h in env.columns.hops:
                self._add(h.evidence_id, [h.upstream, h.downstream, h.upstream_column, h.downstream_column,
                                          f"{h.upstream}.{h.upstream_column}", f"{h.downstream}.{h.downstream_column}",
                                          f"{labels.get(h.upstream, h.upstream)}.{h.upstream_column}",
                                          labels.get(h.downstream, h.downstream)])
        for f in env.freshness:
            parts = [f.source, f.status, str(f.age_hours), str(f.warn_after_hours), str(f.error_after_hours),
                     f"{f.loaded_at:%Y-%m-%d}" if f.loaded_at else ""]
            for i in (f.evidence_id, f.policy_evidence_id):
                if i:
                    self._add(i, parts)
        if env.clarify:
            for o in env.clarify.options:
                if o.evidence_id:
                    self._add(o.evidence_id, [o.label, o.version or "", str(o.date or "")])
                    self.governing.add(o.evidence_id)
        for h in env.supporting:
            self._add(h.evidence_id, [h.evidence_id, h.title])
        # Discover, compare, owner, downstream and document answers: listed, never governing by themselves.
        for evidence_id, parts in intent_facts(env).items():
            self._add(evidence_id, parts)
        self.extra_versions: dict[str, set[str]] = {}
        for it in (env.listing.items if env.listing else []):
            self.extra_versions.setdefault(it.evidence_id, set()).update(
                (v.version or "").lower().lstrip("v") for v in it.versions)
        for it in (env.downstream.items if env.downstream else []):
            for i in [it.evidence_id, *it.via]:
                if i and it.version:
                    self.extra_versions.setdefault(i, set()).add(it.version.lower().lstrip("v"))
        for v in (env.ownership.history if env.ownership else []):
            self.extra_versions.setdefault(v.evidence_id, set()).add((v.version or "").lower().lstrip("v"))
        day = env.reporting_date
        self.context_dates = {str(d) for d in (day, env.period_start, env.evaluated_at.date()) if d}
        if env.period_end:
            self.context_dates |= {str(env.period_end), str(env.period_end - timedelta(days=1))}
        self.decisions = [_norm(t) for t in [env.verdict, *env.notes, *(sp.verdict for sp in env.splits)]
                          + ([env.clarify.question, *(o.label for o in env.clarify.options)] if env.clarify else [])]

    @staticmethod
    def _dates(valid_from, valid_to) -> list[str]:
        out = [str(valid_from) if valid_from else ""]
        if valid_to:
            out += [str(valid_to), str(valid_to - timedelta(days=1))]
        return out

    def _add(self, evidence_id: str, parts: list[str]) -> None:
        self.text.setdefault(evidence_id, []).extend(p for p in parts if p)

    def haystack(self, ids: list[str]) -> str:
        return _norm(" ".join(p for i in ids for p in self.text.get(i, [])))


def _affirms_governing(text: str) -> bool:
    if _DISCLAIMS.search(text):
        return False
    for m in _GOVERNS.finditer(text):
        if not _NEGATOR.search(text[:m.start()][-40:]):
            return True
    return False


def check_markup(text: str, hay: str) -> list[tuple[str, str]]:
    """(rule, detail) for markup, control characters and URLs not in `hay` (normalized evidence text)."""
    found = []
    if _CONTROL.search(text):
        found.append(("control_characters", "carries control characters or terminal escape sequences"))
    outside_code = _TICKS.sub(" ", text)
    for what, pattern in _MARKUP:
        if pattern.search(outside_code):
            found.append(("markup", f"carries {what}"))
    for url in _URL.findall(text):
        if _norm(url.rstrip(".,;:!?")) not in hay:
            found.append(("url_not_in_evidence", f"links to {url}, which the cited evidence does not contain"))
    return found


def check_sentence(i: int, s: Cited, facts: _Facts, visible: set[str]) -> list[Problem]:
    env_ids = set(facts.text)
    problems: list[Problem] = []

    def flag(rule: str, detail: str) -> None:
        problems.append(Problem(sentence=i, rule=rule, detail=detail))

    for rule, detail in check_markup(s.text, facts.haystack([c for c in s.citations if c in visible])):
        flag(rule, detail)
    if not s.citations:
        if not any(_norm(s.text).rstrip(".") in d for d in facts.decisions):
            flag("uncited", "a factual sentence without citations")
        return problems
    for c in s.citations:
        if c not in visible:
            flag("forbidden_citation", f"cites {c}, which the requester may not see or which does not exist")
        elif c not in env_ids:
            flag("citation_not_in_envelope", f"cites {c}, which is not part of this answer's evidence")
    cited = [c for c in s.citations if c in env_ids and c in visible]
    text = s.text
    lower = text.lower()
    if _affirms_governing(text):
        wrong = [c for c in cited if c in facts.conflicts]
        for c in wrong:
            flag("presents_as_governing", f"presents {c} ({facts.conflicts[c].label}) as governing")
        if not any(c in facts.governing for c in cited):
            flag("governing_not_cited", "states what governs without citing the governing evidence")
        day = facts.env.reporting_date
        for c in cited:
            start, end = facts.intervals.get(c, (None, None))
            if c in facts.governing and day and c not in facts.conflicts and (
                    (start and day < start) or (end and day >= end)):
                if facts.env.behavior is not Behavior.clarify:
                    flag("not_in_effect", f"{c} is not in effect on {day}")
    versions = {v.rstrip(".").lower() for v in _VERSION.findall(text)}
    cited_versions = {_version_of(facts, c) for c in cited} | {v for c in cited for v in facts.extra_versions.get(c, ())}
    for v in versions - cited_versions:
        flag("wrong_version", f"names version {v}, but the cited evidence is version "
             + (", ".join(sorted(x for x in cited_versions if x)) or "unversioned"))
    for c in cited:
        conflict = facts.conflicts.get(c)
        if conflict and not re.search(LABEL_WORDS.get(conflict.label, "$^"), lower):
            flag("unlabeled_conflict", f"cites {c} without saying it is {conflict.label.lower()}")
    hay = facts.haystack(cited)
    for span in _TICKS.findall(text):
        if _norm(span) not in hay:
            flag("formula_not_in_evidence", f"`{span}` does not appear in the cited evidence")
    plain = _TICKS.sub(" ", text)
    for expr in _EXPRESSION.findall(plain):
        if _norm(expr) not in hay:
            flag("formula_not_in_evidence", f"'{expr}' does not appear in the cited evidence")
    dates = set(_DATE.findall(plain))
    for d in sorted(dates - facts.context_dates):
        if d not in hay:
            flag("date_not_in_evidence", f"{d} does not appear in the cited evidence")
    hay_numbers = {_num(n) for n in _NUMBER.findall(hay)}
    bare = _TIME.sub(" ", _DATE.sub(" ", _VERSION.sub(" ", plain)))
    for token in bare.split():
        m = _NUMBER_TOKEN.match(token.strip(".,;:()[]\"'"))
        if m and _num(m.group(1)) not in hay_numbers:
            flag("number_not_in_evidence", f"{m.group(1)} does not appear in the cited evidence")
    words = _words(text)
    for c in facts.env.conflicts:
        if c.label == "UNTRUSTED" and _runs(words) & _runs(_words(c.text)) and not re.search(
                LABEL_WORDS["UNTRUSTED"], lower):
            flag("repeats_untrusted", f"repeats text of {c.evidence_id} as if it were fact")
    for r in facts.env.selected:
        if r.metric and r.evidence_id in cited:
            for m in re.finditer(r"\binclud\w*\b([^.;]*)", lower):
                if _NEGATOR.search(lower[:m.start()][-40:]):
                    continue
                for x in r.metric.exclusions:
                    if x.lower() in m.group(1) or any(w in m.group(1).split() for w in _words(x) if len(w) > 4):
                        flag("contradicts_evidence", f"says it includes {x}, which {r.evidence_id} excludes")
    return problems


def _version_of(facts: _Facts, evidence_id: str) -> str | None:
    for r in list(facts.env.selected) + [s for sp in facts.env.splits for s in sp.selected]:
        if r.evidence_id == evidence_id and r.version:
            return r.version.lower().lstrip("v")
    c = facts.conflicts.get(evidence_id)
    if c and c.version:
        return c.version.lower().lstrip("v")
    if facts.env.clarify:
        for o in facts.env.clarify.options:
            if o.evidence_id == evidence_id and o.version:
                return o.version.lower().lstrip("v")
    return None


def still_answers(sentences: list[Cited], env: Envelope) -> list[Problem]:
    """Whole-explanation rules: what must survive for the explanation to be a correct answer."""
    cited = {c for s in sentences for c in s.citations}
    problems = []
    must = [s.evidence_id for s in env.selected if s.role_in_answer in ("definition", "overlap")]
    must += [s.evidence_id for sp in env.splits for s in sp.selected if s.role_in_answer == "definition"]
    for m in must:
        if m not in cited:
            problems.append(Problem(sentence=None, rule="governing_missing",
                                    detail=f"the governing evidence {m} is not cited"))
    for c in env.conflicts:
        if c.evidence_id not in cited:
            problems.append(Problem(sentence=None, rule="conflict_not_disclosed",
                                    detail=f"{c.evidence_id} ({c.label}) is not mentioned"))
    if not sentences:
        problems.append(Problem(sentence=None, rule="empty", detail="no sentences"))
    return problems


def validate(sentences: list[Cited], env: Envelope, visible: set[str]) -> tuple[list[Cited], Validation]:
    """Check every sentence; drop the offending ones if what remains still answers, else report failure.

    Returns the sentences that may be shown (empty when the explanation must not be shown) and the verdict.
    """
    facts = _Facts(env)
    problems = [p for i, s in enumerate(sentences) for p in check_sentence(i, s, facts, visible)]
    bad = sorted({p.sentence for p in problems if p.sentence is not None})
    kept = [s for i, s in enumerate(sentences) if i not in bad]
    whole = still_answers(kept, env)
    if not problems and not whole:
        return kept, Validation(passed=True)
    if whole:
        return [], Validation(passed=False, problems=problems + whole, dropped=list(range(len(sentences))))
    return kept, Validation(passed=False, problems=problems, dropped=bad)
