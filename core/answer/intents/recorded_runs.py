"""What dbt recorded of one model or source, said as an answer: its tests' results in the last recorded run, its
own last run, and its tags, meta and configuration.

The rule that matters: a result is said only when run_results.json recorded one. A test with no recorded result is
"not known", never a pass, and a question whether the tests pass is then answered "Not known", never "Yes".
"""
from __future__ import annotations

import re

from core.catalog.envelope import TableTest
from core.catalog.evidence import ModelSpec, RunResult

FAILED = ("fail", "error")
NOT_PASSED = ("fail", "error", "warn")


def when(run: RunResult) -> str:
    return f"{run.completed_at:%Y-%m-%d %H:%M} UTC" if run.completed_at else "a time not recorded"


def _test_name(t: TableTest) -> str:
    return t.name + (f" on {t.column}" if t.column else " (on the whole table)")


def _failing(t: TableTest) -> str:
    rows = t.result.failures
    said = f"{_test_name(t)} ({t.result.status}"
    if rows:
        said += f", {rows} failing row{'' if rows == 1 else 's'}"
    return said + ")"


def test_results_verdict(label: str, tests: list[TableTest], yes_no: bool) -> str:
    """Whether the tests on `label` passed in the last recorded run, which did not, and what is not known."""
    if not tests:
        return f"No data tests you can see run on {label}, so no test results can be reported."
    known = [t for t in tests if t.result is not None]
    if not known:
        lead = "Not known: n" if yes_no else "N"
        return (f"{lead}o test results are recorded for {label}: {len(tests)} data test{'' if len(tests) == 1 else 's'} "
                "run on it, but no run_results.json recording them was ingested, so whether they pass is not known.")
    latest = max((t.result for t in known if t.result.completed_at), key=lambda r: r.completed_at, default=known[0].result)
    bad = [t for t in known if t.result.status in NOT_PASSED]
    failed = [t for t in bad if t.result.status in FAILED]
    skipped = [t for t in known if t.result.status == "skipped"]
    passed = [t for t in known if t.result.status == "pass"]
    unknown = len(tests) - len(known)
    parts = []
    if failed:
        lead = "No: " if yes_no else ""
        parts.append(f"{lead}{len(failed)} of {len(tests)} data tests on {label} failed in the last recorded run "
                     f"({when(latest)}): " + "; ".join(_failing(t) for t in failed) + ".")
    elif bad or skipped or unknown:
        lead = "Not all: " if yes_no else ""
        parts.append(f"{lead}no data test on {label} failed in the last recorded run ({when(latest)}), but not all "
                     "passed.")
    else:
        lead = "Yes: " if yes_no else ""
        n = len(tests)
        parts.append(f"{lead}{'the one data test' if n == 1 else f'all {n} data tests'} on {label} passed in the last "
                     f"recorded run ({when(latest)}).")
    warned = [t for t in bad if t.result.status == "warn"]
    if warned:
        parts.append("Warned: " + "; ".join(_failing(t) for t in warned) + ".")
    if skipped:
        parts.append("Skipped: " + "; ".join(_test_name(t) for t in skipped) + ".")
    if passed and (failed or warned or skipped or unknown):
        parts.append("Passed: " + "; ".join(_test_name(t) for t in passed) + ".")
    if unknown:
        parts.append(f"No result is recorded for {unknown} of them.")
    text = " ".join(parts)
    return text[0].upper() + text[1:]


def last_run_verdict(label: str, spec: ModelSpec) -> str:
    if spec.enabled is False:
        return f"{label} is disabled in dbt (enabled: false): it is not built, so it has no run."
    run = spec.last_run
    if run is None:
        return (f"No run of {label} is recorded: the run_results.json ingested (if any) holds no result for it, so when "
                "it last ran is not known.")
    took = f", taking {run.execution_time_s:g} s" if run.execution_time_s is not None else ""
    said = f"{label} last ran in the recorded dbt run at {when(run)}: {run.status}{took}."
    if run.status in FAILED and run.message:
        said += f" dbt said: {run.message}"
    return said


def _value(v) -> str:
    if isinstance(v, list):
        return ", ".join(str(x) for x in v) or "(empty)"
    return "true" if v is True else "false" if v is False else "(empty)" if v is None else str(v)


# A property asked for by name and not recorded, said so: silence would read as if it had not been asked.
_NOT_RECORDED = {"materialized": "no materialization recorded", "access": "no access level recorded",
                 "contract": "no contract recorded", "group": "no group recorded"}


def properties_verdict(label: str, spec: ModelSpec, asked: tuple[str, str] | None, named: list[str] = (),
                       from_dbt: bool = True, text: str = "") -> str:
    """Its tags, meta and configuration, with each property the question names and the catalog does not record said
    to be missing; a yes/no question about one of them is answered yes or no first. Only a table a dbt project
    described is said to be "in dbt". `text` is the table's own description: a contract it speaks of that is not
    recorded is quoted, never denied."""
    facts = []
    facts.append(f"tags: {', '.join(spec.tags)}" if spec.tags else "no tags")
    if spec.meta:
        facts.append("meta: " + "; ".join(f"{k} = {_value(v)}" for k, v in spec.meta.items()))
    else:
        facts.append("no meta")
    if spec.materialized:
        facts.append(f"materialized as {spec.materialized}")
    if spec.enabled is False:
        facts.append("disabled (enabled: false)")
    if spec.access:
        facts.append(f"access {spec.access}")
    if spec.contract:
        facts.append("contract enforced")
    elif spec.contract is False and "contract" in named:
        facts.append("contract not enforced")
    if spec.group:
        facts.append(f"group {spec.group}")
    present = {"materialized": spec.materialized, "access": spec.access, "contract": spec.contract is not None,
               "group": spec.group}
    facts += [_NOT_RECORDED[n] for n in named if n in _NOT_RECORDED and not present[n]]
    said = f"{label} {'in dbt' if from_dbt else 'as the catalog records it (not from dbt)'}: " + "; ".join(facts) + "."
    answer = _yes_no(label, spec, asked, text)
    return f"{answer} {said}" if answer else said


_CONTRACT_SAID = re.compile(r"[^.!?]*\bcontract(?:s|ed)?\b[^.!?]*[.!?]?", re.I)


def _said_in_text(text: str) -> str | None:
    """The sentence of a table's own description that speaks of a contract, as written."""
    m = _CONTRACT_SAID.search(text or "")
    return m.group().strip() if m else None


def _yes_no(label: str, spec: ModelSpec, asked: tuple[str, str] | None, text: str = "") -> str | None:
    if asked is None:
        return None
    field, value = asked
    if field == "materialized":
        if not spec.materialized:
            return f"Not known: no materialization is recorded for {label}."
        return ("Yes:" if spec.materialized == value else "No:") + f" {label} is materialized as {spec.materialized}."
    if field == "enabled":
        off = spec.enabled is False
        return ("Yes:" if off == (value == "disabled") else "No:") + f" {label} is {'disabled' if off else 'enabled'}."
    if field == "access":
        if not spec.access:
            return f"Not known: no access level is recorded for {label}."
        return ("Yes:" if spec.access == value else "No:") + f" {label}'s access is {spec.access}."
    if field == "contract":
        said = _said_in_text(text) if spec.contract is None else None
        if said:  # "Contracted model version 2." on the card: a bare "No" would contradict what the reader sees
            return (f"Not recorded: no contract is recorded in {label}'s properties, though its description says "
                    f"\u201c{said}\u201d.")
        return (f"Yes: {label}'s contract is enforced." if spec.contract
                else f"No: {label}'s contract is not enforced." if spec.contract is False
                else f"No: no contract is recorded for {label}.")
    if field == "tags":
        return f"Yes: {label} has tags: {', '.join(spec.tags)}." if spec.tags else f"No: no tags are recorded for {label}."
    if field == "meta":
        return f"Yes: {label} has meta." if spec.meta else f"No: no meta is recorded for {label}."
    if field == "pii":
        keys = {k: v for k, v in spec.meta.items() if "pii" in k.lower() or "personal" in k.lower()}
        if not keys:
            return f"Not known: {label}'s meta records no PII flag."
        flagged = any(v not in (False, None, "", "false", "no", "none", 0) for v in keys.values())
        return ("Yes:" if flagged else "No:") + f" {label}'s meta says " + "; ".join(
            f"{k} = {_value(v)}" for k, v in keys.items()) + "."
    return None
