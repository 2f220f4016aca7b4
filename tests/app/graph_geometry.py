"""What vis-network actually drew: every box's bounding box and every drawn edge piece, read from the live
network object inside the streamlit-agraph iframe, and the checks issue 19 asks for (no edge piece passes
through a box it does not start or end in, no two boxes overlap, no box runs off the canvas)."""
from core.resolve.layout import segment_hits_box

# streamlit-agraph keeps the vis Network in a React hook's state and exposes no handle: walk the React fiber
# from the network's <div> up to the component and read its hooks.
_READ = """() => {
  const div = document.querySelector('.vis-network');
  if (!div) return null;
  let net = null;
  for (let el = div; el && !net; el = el.parentElement) {
    const k = Object.keys(el).find(k => k.startsWith('__reactInternalInstance') || k.startsWith('__reactFiber'));
    if (!k) continue;
    for (let f = el[k]; f && !net; f = f.return)
      for (let h = f.memoizedState; h && typeof h === 'object' && 'next' in h && !net; h = h.next)
        if (h.memoizedState && typeof h.memoizedState.getBoundingBox === 'function') net = h.memoizedState;
  }
  if (!net) return null;
  const data = net.body.data.nodes.get();
  const pos = net.getPositions();
  const canvas = div.querySelector('canvas');
  const boxes = {};
  for (const n of data) if (n.shape === 'box') {
    const b = net.getBoundingBox(n.id);
    const tl = net.canvasToDOM({x: b.left, y: b.top}), br = net.canvasToDOM({x: b.right, y: b.bottom});
    boxes[n.id] = {box: [b.left, b.top, b.right, b.bottom], dom: [tl.x, tl.y, br.x, br.y], label: n.label,
                   fill: n.color && n.color.background};
  }
  const edges = net.body.data.edges.get().map(e => [e.from, e.to]);
  return {boxes, pos, edges, scale: net.getScale(), canvas: [canvas.clientWidth, canvas.clientHeight]};
}"""


def read(page, timeout_ms: int = 30000) -> dict:
    """The drawn graph of the first agraph on the page (waits until the network exists and has drawn)."""
    frame = page.locator("iframe[title='streamlit_agraph.agraph']").first.content_frame
    frame.locator("canvas").first.wait_for(timeout=timeout_ms)
    page.wait_for_timeout(1200)
    geo = frame.locator("body").evaluate(f"(_) => ({_READ})()")
    assert geo and geo["boxes"], "no vis network found in the agraph frame"
    return geo


def problems(geo: dict) -> list[str]:
    out = []
    boxes = geo["boxes"]
    pos = {k: (v["x"], v["y"]) for k, v in geo["pos"].items()}
    for a, b in geo["edges"]:
        for bid, info in boxes.items():
            if bid in (a, b):
                continue
            if segment_hits_box(pos[a], pos[b], tuple(info["box"])):
                out.append(f"edge piece {a!r} -> {b!r} passes through box {bid!r}")
    ids = sorted(boxes)
    for i, a in enumerate(ids):
        ax0, ay0, ax1, ay1 = boxes[a]["box"]
        for b in ids[i + 1:]:
            bx0, by0, bx1, by1 = boxes[b]["box"]
            if ax0 < bx1 and bx0 < ax1 and ay0 < by1 and by0 < ay1:
                out.append(f"boxes {a!r} and {b!r} overlap")
    w, h = geo["canvas"]
    for bid, info in boxes.items():
        x0, y0, x1, y1 = info["dom"]
        if x0 < -1 or y0 < -1 or x1 > w + 1 or y1 > h + 1:
            out.append(f"box {bid!r} is cut by the canvas edge ({x0:.0f},{y0:.0f})-({x1:.0f},{y1:.0f}) in {w}x{h}")
    return out
