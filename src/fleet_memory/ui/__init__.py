"""The memory browser: static pages (HTML, CSS, plain JavaScript modules, no build step, nothing
from a CDN) that ``fleet-memory serve`` serves at ``/ui``.

The pages hold no data of their own and have no route of their own that reads or writes memory:
every action calls the REST routes under ``/v1`` with the API key in the ``X-API-Key`` header,
so it passes the same validation and authorisation as any client. The key is kept in the tab's
``sessionStorage`` only (never in a URL, never in ``localStorage``). The graph page runs the
renderer of ``fleet_memory.viz`` (``assets/graph.js``), served here at ``/ui/viz/graph.js``.
"""

from __future__ import annotations

from importlib import resources

__all__ = ["PREFIX", "mount_ui"]

PREFIX = "/ui"


def mount_ui(app: object) -> None:
    """Serve the browser's assets at ``/ui/`` (``/ui`` redirects there) on a FastAPI ``app``."""
    from fastapi.responses import RedirectResponse, Response
    from starlette.staticfiles import StaticFiles

    assets = resources.files("fleet_memory.ui") / "assets"
    graph_js = resources.files("fleet_memory.viz") / "assets" / "graph.js"

    @app.get(PREFIX, include_in_schema=False)
    def ui_root() -> RedirectResponse:
        return RedirectResponse(PREFIX + "/", status_code=308)

    @app.get(PREFIX + "/viz/graph.js", include_in_schema=False)
    def viz_renderer() -> Response:
        return Response(graph_js.read_text("utf-8"), media_type="text/javascript",
                        headers={"Cache-Control": "no-cache"})

    app.mount(PREFIX, StaticFiles(directory=str(assets), html=True), name="ui")
