"""Render ``GraphData`` as a static PNG with matplotlib (Agg backend, no display needed).

Layout: Fruchterman–Reingold spring layout in numpy — O(iterations × n²) with n bounded by the
picture's node limit — seeded, so the same graph always gives the same picture.
"""

from __future__ import annotations

from pathlib import Path

from .graph import GraphData

__all__ = ["spring_layout", "render_png"]

_EDGE = {"temporal": ("#00bcd4", 1.2, (0, (4, 3))), "semantic": ("#e91e63", 1.6, "solid"),
         "entity": ("#ffc107", 3.5, "solid")}
_TYPE = {"episodic": "#5c7cfa", "semantic": "#40c057", "procedural": "#fd7e14"}


def spring_layout(n: int, edges: list[tuple[int, int, float]], iterations: int = 200, seed: int = 7):
    import numpy as np

    rng = np.random.default_rng(seed)
    pos = rng.uniform(-1, 1, size=(n, 2))
    if n <= 1:
        return np.zeros((n, 2))
    k = 1.0 / np.sqrt(n)
    weights = np.zeros((n, n))
    for a, b, w in edges:
        weights[a, b] = weights[b, a] = max(weights[a, b], 0.3 + w)
    temperature = 0.2
    for _ in range(iterations):
        delta = pos[:, None, :] - pos[None, :, :]
        dist = np.maximum(np.linalg.norm(delta, axis=-1), 1e-3)
        force = (k * k / dist**2 - weights * dist / k)  # repulsion − attraction along edges
        disp = (delta * force[:, :, None]).sum(axis=1)
        length = np.maximum(np.linalg.norm(disp, axis=1), 1e-9)
        pos += disp / length[:, None] * np.minimum(length, temperature)[:, None]
        pos -= pos.mean(axis=0) * 0.05
        temperature *= 0.98
    return pos


def render_png(graph: GraphData, path: str | Path, title: str | None = None) -> Path:
    from ..extras import require

    require("viz", "PNG pictures", "matplotlib")
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D

    index = {node.id: i for i, node in enumerate(graph.nodes)}
    edges = [(index[e.source], index[e.target], e.weight, e.kind) for e in graph.edges
             if e.source in index and e.target in index]
    pos = spring_layout(len(graph.nodes), [(a, b, w) for a, b, w, _ in edges])
    fig, ax = plt.subplots(figsize=(12, 9), dpi=100)
    order = {"entity": 0, "semantic": 1, "temporal": 2}  # thick gold underneath, dashed cyan on top
    for a, b, w, kind in sorted(edges, key=lambda e: order.get(e[3], 0)):
        color, width, style = _EDGE.get(kind, _EDGE["semantic"])
        ax.plot(*zip(pos[a], pos[b]), color=color, linewidth=width, linestyle=style, alpha=0.4 + 0.5 * w, zorder=1)
    traced = {t.id for t in graph.trace}
    for node, (x, y) in zip(graph.nodes, pos):
        ax.scatter([x], [y], s=80 + 400 * node.importance, color=_TYPE.get(node.type, "#888"), zorder=2,
                   edgecolors="#6741d9" if node.id in traced else "#222", linewidths=3 if node.id in traced else 0.8)
        label = node.text if len(node.text) <= 40 else node.text[:37] + "…"
        ax.annotate(label, (x, y), xytext=(6, 6), textcoords="offset points", fontsize=7, zorder=3)
    handles = [Line2D([], [], color=c, linewidth=w, linestyle=s, label=k) for k, (c, w, s) in _EDGE.items()]
    fig.legend(handles=handles, loc="lower center", ncol=3, fontsize=9, frameon=False)
    ax.set_title(title or f"fleet-memory · {graph.agent_id} · {len(graph.nodes)} memories, {len(edges)} links")
    ax.set_axis_off()
    out = Path(path)
    fig.savefig(out, bbox_inches="tight")
    plt.close(fig)
    return out
