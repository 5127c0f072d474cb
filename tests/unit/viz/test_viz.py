"""Graph data and its renderers, without a database."""

from __future__ import annotations

import json
import re
from datetime import datetime, timezone
from uuid import uuid4

import numpy as np

from fleet_memory.model import Explanation, MemoryType, PathStep, SearchResult
from fleet_memory.viz import GraphData, GraphEdge, GraphNode, TraceStep, render_html, render_png
from fleet_memory.viz.graph import trace_from_results
from fleet_memory.viz.png import spring_layout


def _graph(n: int = 6) -> GraphData:
    nodes = tuple(GraphNode(f"n{i}", f"memory {i}", ("episodic", "semantic", "procedural")[i % 3], 0.5,
                            f"2025-01-0{i % 9 + 1}T00:00:00+00:00") for i in range(n))
    edges = (GraphEdge("n0", "n1", "temporal", 0.8), GraphEdge("n1", "n2", "semantic", 0.9),
             GraphEdge("n2", "n3", "entity", 1.0, "Alice"))
    return GraphData("agent", nodes, edges, query="q", trace=(TraceStep("n3", 1, 0.9, ("n1", "n2")),))


def test_html_is_self_contained_and_escapes_the_data():
    graph = _graph()
    hostile = GraphNode("x", "</script><script>alert(1)</script>", "episodic", 0.5, "2025-01-01T00:00:00+00:00")
    page = render_html(GraphData("agent", graph.nodes + (hostile,), graph.edges))
    assert page.count("</script>") == 2  # the data block and the renderer, nothing injected
    assert not re.search(r"<(link|img|iframe)\b|\bsrc=|@import|fetch\(|XMLHttpRequest", page)
    urls = set(re.findall(r"https?://[^\s\"')]+", page))
    assert urls == {"http://www.w3.org/2000/svg"}  # the SVG namespace, never fetched
    assert "default-src 'none'" in page
    data = re.search(r'<script type="application/json" id="graph-data">(.*?)</script>', page, re.S).group(1)
    assert json.loads(data)["nodes"][-1]["text"] == hostile.text


def test_html_carries_the_seed_link_styles():
    page = render_html(_graph())
    assert '"#00bcd4", width: 1.5, dash: "6,4"' in page  # temporal: cyan, dashed
    assert '"#e91e63", width: 2, dash: null' in page  # semantic: pink, solid
    assert '"#ffc107", width: 4, dash: null' in page  # entity: gold, thick


def test_png_is_written_and_non_empty(tmp_path):
    path = render_png(_graph(), tmp_path / "g.png")
    data = path.read_bytes()
    assert data.startswith(b"\x89PNG\r\n\x1a\n") and len(data) > 10_000


def test_spring_layout_is_deterministic_and_pulls_linked_nodes_together():
    edges = [(0, 1, 1.0), (2, 3, 1.0)]
    a, b = spring_layout(6, edges), spring_layout(6, edges)
    assert np.allclose(a, b) and np.isfinite(a).all()
    linked = np.linalg.norm(a[0] - a[1])
    unlinked = np.mean([np.linalg.norm(a[0] - a[k]) for k in (4, 5)])
    assert linked < unlinked


def _hit(unit_id, weight: float, path: tuple = ()) -> SearchResult:
    explanation = Explanation(("vector",), len(path) - 1, path, {}, "balanced") if path else None
    return SearchResult(unit_id, "text", weight, MemoryType.EPISODIC, datetime(2025, 1, 1, tzinfo=timezone.utc),
                        explanation=explanation)


def test_trace_takes_the_path_from_recall_explanations():
    a, b = uuid4(), uuid4()
    hits = [_hit(a, 0.9, (PathStep(a),)), _hit(b, 0.5, (PathStep(a), PathStep(b, a, "entity", 1.0))), _hit(a, 0.1)]
    steps = trace_from_results(hits)
    assert [s.rank for s in steps] == [1, 2, 3]
    assert steps[1].path == (str(a), str(b)) and steps[2].path == ()
