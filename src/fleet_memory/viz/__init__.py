"""Pictures of the memory graph: graph data as plain data (``graph``), rendered to an offline
interactive HTML page (``html``) and to a static PNG (``png``)."""

from .graph import GraphData, GraphEdge, GraphNode, TraceStep, build_graph, trace_from_results
from .html import render_html
from .png import render_png, spring_layout

__all__ = ["GraphData", "GraphEdge", "GraphNode", "TraceStep", "build_graph",
           "render_html", "render_png", "spring_layout", "trace_from_results"]
