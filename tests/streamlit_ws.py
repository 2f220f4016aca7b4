"""A Streamlit session over the app's own websocket, without a browser: what Chromium sends and reads, minus the
rendering. Used by benchmarks/replicas.py to measure the replicas' answers per second (on 2 CPUs six Chromium pages
rendering at once took most of the machine, so the browser runs measured Chromium more than AsOf) and by
tests/app/test_replicas.py for many sessions at once.

The protocol is Streamlit's (its `streamlit.proto` messages): the client connects to `/_stcore/stream` with the
`streamlit` subprotocol and sends one BackMsg `rerun_script` carrying the page's query string (the shared link
`?q=...&role=...&date=...`); the server runs the script and streams ForwardMsg deltas, each an element at a
path of the page, until `script_finished`. A rerun starts a new page, as the browser's does. Cookies and the
gateway's identity header travel on the upgrade request, as a browser's do through nginx.
"""
from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from urllib.parse import urlencode, urlsplit

# Elements whose text a reader sees, and the field holding it. All but code, JSON and HTML are Markdown as shown.
_TEXT_FIELDS = {"markdown": "body", "text": "body", "heading": "body", "alert": "body", "code": "code_text",
                "metric": "body", "json": "body", "html": "body"}
_LITERAL = {"code", "json", "html", "text"}
# Markdown escapes (`raw\\_payments`): undone, so an id on the page reads as the id (a leak check must see it).
_ESCAPED = re.compile(r"\\([^\w\s]|_)")


def _shown(markdown: str) -> str:
    return _ESCAPED.sub(r"\1", markdown)


def _arrow_text(data: bytes) -> str:
    """Every cell and column name of a dataframe, table or chart element (Arrow IPC), as one text."""
    import pyarrow as pa
    if not data:
        return ""
    table = pa.ipc.open_stream(data).read_all()
    cells = [str(v) for column in table.columns for v in column.to_pylist() if v is not None]
    return " ".join([*table.column_names, *cells])


def _options(widget) -> list[str]:
    return [o if isinstance(o, str) else getattr(o, "content", str(o)) for o in widget.options]


@dataclass
class WsPage:
    """The page as the last complete run drew it: element text by delta path, widgets by label."""
    texts: dict[tuple, str] = field(default_factory=dict)
    selects: dict[str, str] = field(default_factory=dict)
    offered: dict[str, list[str]] = field(default_factory=dict)  # a choice widget's options, by label
    exceptions: list[str] = field(default_factory=list)
    headline_block: tuple | None = None

    def text(self) -> str:
        # Sidebar (path root 1) and main (root 0) in drawing order, as a page's inner text reads.
        return "\n".join(self.texts[p] for p in sorted(self.texts))


def _block(page: WsPage, path: tuple, block) -> None:
    """A container: an expander's, tab's or popover's label is on screen like any text."""
    if "headline" in block.id:
        page.headline_block = path
    kind = block.WhichOneof("type")
    if kind in ("expandable", "tab", "popover"):
        page.texts[path] = _shown(getattr(block, kind).label)


def _element(page: WsPage, path: tuple, el) -> bool:
    """Record one element; True when it is the headline's text (the answer is on screen)."""
    kind = el.WhichOneof("type")
    if kind == "exception":
        page.exceptions.append(f"{el.exception.type}: {el.exception.message}")
        page.texts[path] = el.exception.message
    elif kind in _TEXT_FIELDS:
        body = getattr(getattr(el, kind), _TEXT_FIELDS[kind])
        page.texts[path] = body if kind in _LITERAL else _shown(body)
        if kind == "metric":
            page.texts[path] = f"{_shown(el.metric.label)}\n{page.texts[path]}"
    elif kind in ("dataframe", "table"):
        page.texts[path] = _arrow_text(getattr(el, kind).arrow_data.data)
    elif kind == "vega_lite_chart":  # a chart's spec and data (the restatement's labels)
        chart = el.vega_lite_chart
        page.texts[path] = " ".join([chart.spec, _arrow_text(chart.data.data),
                                     *(_arrow_text(d.data.data) for d in chart.datasets)])
    elif kind == "component_instance":  # the lineage graph: its nodes and edges are in the arguments
        page.texts[path] = el.component_instance.json_args
    elif kind in ("selectbox", "radio", "button_group", "multiselect"):
        widget = getattr(el, kind)
        options = _options(widget)
        label = getattr(widget, "label", "")
        page.offered[label] = options
        if kind == "selectbox":
            value = widget.raw_value if widget.HasField("raw_value") else (
                options[widget.default] if widget.HasField("default") and widget.default < len(options) else "")
            page.selects[label] = value
        page.texts[path] = "\n".join([label, *options])
    elif kind in ("button", "download_button", "link_button", "page_link"):
        page.texts[path] = _shown(getattr(el, kind).label)
    else:
        page.texts.pop(path, None)
    return kind == "markdown" and page.headline_block is not None and path[:len(page.headline_block)] == \
        page.headline_block


def ask(lb_url: str, query: dict, cookies: dict[str, str], timeout_s: float = 120) -> dict:
    """Open a session at `lb_url/?query`, let its script run to the end, and return what the page shows: the
    keys `tests/replicas.read_answer` returns (text, revision, count, role, exceptions, ms; `ms` from sending
    the request to the headline's arrival), plus the roles the Role box offers and `run_ms` to the end of the run.
    Not read: a download button's file (the browser fetches it only when clicked)."""
    from streamlit.proto.BackMsg_pb2 import BackMsg
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
    from websockets.sync.client import connect

    parts = urlsplit(lb_url)
    cookie = "; ".join(f"{k}={v}" for k, v in cookies.items())
    back = BackMsg()
    back.rerun_script.query_string = urlencode(query)
    back.rerun_script.page_script_hash = ""
    page, headline_ms, deadline = WsPage(), None, time.monotonic() + timeout_s
    t0 = time.perf_counter()
    with connect(f"ws://{parts.netloc}/_stcore/stream", subprotocols=["streamlit"],
                 additional_headers={"Cookie": cookie}, open_timeout=timeout_s, max_size=None) as ws:
        ws.send(back.SerializeToString())
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"no finished run within {timeout_s:.0f} s for {query}")
            msg = ForwardMsg()
            msg.ParseFromString(ws.recv(timeout=left))
            kind = msg.WhichOneof("type")
            if kind == "session_status_changed" and msg.session_status_changed.script_is_running:
                page = WsPage()  # a run draws the page anew
            elif kind == "delta":
                path = tuple(msg.metadata.delta_path)
                delta = msg.delta
                if delta.WhichOneof("type") == "add_block":
                    _block(page, path, delta.add_block)
                elif delta.WhichOneof("type") == "new_element":
                    if _element(page, path, delta.new_element) and headline_ms is None:
                        headline_ms = (time.perf_counter() - t0) * 1000
            elif kind == "script_finished" and msg.script_finished == ForwardMsg.FINISHED_SUCCESSFULLY:
                break
            elif kind == "script_finished" and msg.script_finished == ForwardMsg.FINISHED_WITH_COMPILE_ERROR:
                page.exceptions.append("compile error")
                break
    run_ms = (time.perf_counter() - t0) * 1000
    text = page.text()
    caption = re.search(r"Catalog revision\s+`?(\S+?)`?\s+·\s+(\d+) objects? you can see", text)
    return {"text": text, "revision": caption.group(1) if caption else None,
            "count": int(caption.group(2)) if caption else None, "role": page.selects.get("Role"),
            "roles_offered": page.offered.get("Role"),
            "exceptions": len(page.exceptions), "ms": headline_ms if headline_ms is not None else run_ms,
            "run_ms": run_ms}
