"""Render ``GraphData`` as one self-contained HTML page: the data as inline JSON, the renderer
(``assets/graph.js``, vanilla JS + SVG) inlined, a Content-Security-Policy that forbids fetching
anything. The page works from a file, offline."""

from __future__ import annotations

import html
import json
from importlib import resources

from .graph import GraphData

__all__ = ["render_html"]


def _asset(name: str) -> str:
    return (resources.files("fleet_memory.viz") / "assets" / name).read_text("utf-8")


def _json_for_script(value: object) -> str:
    # Inside <script> only "</" and the two JS line separators could break out; escape them.
    text = json.dumps(value, ensure_ascii=False)
    return text.replace("<", "\\u003c").replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def render_html(graph: GraphData, title: str | None = None) -> str:
    title = title or f"fleet-memory · {graph.agent_id}"
    page = _asset("page.html")
    return (page.replace("__TITLE__", html.escape(title))
                .replace("__SCRIPT__", _asset("graph.js"))
                .replace("__DATA__", _json_for_script(graph.to_dict())))
