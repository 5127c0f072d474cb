"""``/docs`` (Swagger UI) and ``/redoc`` served with their scripts and styles from this server, so
the pages work offline: the assets come from the installed ``fastapi-offline`` package (part of
the ``server`` extra) and are served under ``/docs-assets``; nothing is fetched from a CDN."""

from __future__ import annotations

from importlib.resources import files

from fastapi import FastAPI
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html
from fastapi.responses import HTMLResponse
from starlette.staticfiles import StaticFiles

__all__ = ["ASSETS", "mount_docs"]

ASSETS = "/docs-assets"


def mount_docs(app: FastAPI) -> None:
    """Add ``/docs``, ``/redoc`` and their assets to an app made with ``docs_url=None, redoc_url=None``."""
    static = files("fastapi_offline") / "static"
    app.mount(ASSETS, StaticFiles(directory=str(static)), name="docs-assets")
    title = f"{app.title} {app.version}"

    @app.get("/docs", include_in_schema=False)
    def swagger() -> HTMLResponse:
        return get_swagger_ui_html(openapi_url=app.openapi_url, title=title,
                                   swagger_js_url=f"{ASSETS}/swagger-ui-bundle.js",
                                   swagger_css_url=f"{ASSETS}/swagger-ui.css",
                                   swagger_favicon_url=f"{ASSETS}/favicon.png")

    @app.get("/redoc", include_in_schema=False)
    def redoc() -> HTMLResponse:
        return get_redoc_html(openapi_url=app.openapi_url, title=title, redoc_js_url=f"{ASSETS}/redoc.standalone.js",
                              redoc_favicon_url=f"{ASSETS}/favicon.png", with_google_fonts=False)
