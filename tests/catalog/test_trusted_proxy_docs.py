"""Every page that documents ASOF_TRUSTED_PROXIES states its default as the code has it (issue 40, item 7): no
proxy trusted, loopback included. identity-and-deployment.md once gave `127.0.0.1,::1` as the default, two
rounds after loopback stopped being trusted, and showed a same-host proxy set-up that could never sign anyone in."""
import re

from conftest import ROOT

from core.settings.auth import AuthSettings

STATED = ("No proxy is trusted by default, loopback included: without `ASOF_TRUSTED_PROXIES` the identity header "
          "is refused from every address.")


def _pages():
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def _flat(text: str) -> str:
    return re.sub(r"\s+", " ", text)


def test_the_code_trusts_no_proxy_by_default():
    assert AuthSettings(mode="header").trusted_proxies == []


def test_every_page_naming_the_setting_states_the_same_default():
    naming = [p for p in _pages() if "ASOF_TRUSTED_PROXIES" in p.read_text(encoding="utf-8")]
    assert {p.name for p in naming} >= {"identity-and-deployment.md", "deploy.md", "security-model.md"}
    for page in naming:
        text = _flat(page.read_text(encoding="utf-8"))
        assert STATED in text, f"{page.relative_to(ROOT)} does not state the default as the others do"
        # a table row or sentence giving loopback as the default contradicts it
        assert not re.search(r"ASOF_TRUSTED_PROXIES` \| `?127\.0\.0\.1", text), page.name
        # a header-mode example must say whom it trusts: without it nobody can sign in
        for example in re.findall(r"ASOF_AUTH=header [^\n`]*?scripts/run\.sh", text):
            assert "ASOF_TRUSTED_PROXIES=" in example, f"{page.name}: {example}"
