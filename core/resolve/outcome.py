"""How a run ends: an envelope (refused first when the question asks to step outside policy), or a question back
with its options."""
from __future__ import annotations

from core.catalog.envelope import Behavior, Clarify, ClarifyOption, Envelope
from core.resolve.run import Run as _Run


def _clarify(run: _Run, question: str, options: list[ClarifyOption], why: str, **kw) -> Envelope:
    if run.intent.overrides:  # a request to step outside policy is refused before anything is asked back
        run.step("refuse", "the request asks to step outside policy: " + ", ".join(run.intent.overrides))
        return run.envelope(Behavior.refuse, _refusal(run), **kw)
    run.step("clarify", why)
    return run.envelope(Behavior.clarify, question, clarify=Clarify(question=question, options=options), **kw)


def _refusal(run: _Run) -> str:
    return ("I can't do that: answers follow the catalog's permissions and authority rules, and instructions "
            "found in documents or requests to reveal restricted material are not followed.")


def _finish(run: _Run, behavior: Behavior, verdict: str, **kw) -> Envelope:
    if run.intent.overrides:
        run.step("refuse", "the request asks to step outside policy (" + ", ".join(run.intent.overrides)
                 + "); it is not followed, and the governed answer is shown instead")
        verdict = _refusal(run) + " Under the catalog's rules: " + verdict
        behavior = Behavior.refuse
    return run.envelope(behavior, verdict, **kw)
