"""The memory browser's server side: ``GET /v1/me`` (what a key may do), the static pages at
``/ui`` served from the package with nothing fetched from elsewhere, the key kept in the tab's
sessionStorage only, and ``fleet-memory ui`` serving it on localhost without keys."""

from __future__ import annotations

import re
import subprocess
import time
from importlib import resources

import httpx
import pytest
from fastapi.testclient import TestClient

from fleet_memory.rest import create_app
from tests.support.processes import FLEET_MEMORY, clean_env, free_port

ASSETS = {f.name: f.read_text("utf-8") for f in (resources.files("fleet_memory.ui") / "assets").iterdir()}
OFFSITE = re.compile(r"""(?:src|href)\s*=\s*["']?(?:https?:)?//|url\(\s*["']?(?:https?:)?//|"""
                     r"""(?:from|import)\s*\(?\s*["'](?:https?:)?//|fetch\(\s*["'](?:https?:)?//""")


@pytest.fixture
def client(memory):
    with TestClient(create_app(memory)) as c:
        yield c


def test_me_names_the_agents_of_a_scoped_key_and_marks_an_admin_key(client, memory):
    scoped, record = memory.create_api_key("alice's", agent_ids=["alice", "alice-2"])
    admin, _ = memory.create_api_key("ops", admin=True)
    mine = client.get("/v1/me", headers={"X-API-Key": scoped})
    assert mine.status_code == 200
    assert mine.json() == {"auth": True, "name": "alice's", "prefix": record.prefix, "admin": False,
                           "agent_ids": ["alice", "alice-2"]}
    assert client.get("/v1/me", headers={"Authorization": f"Bearer {admin}"}).json()["admin"] is True


def test_me_refuses_a_missing_unknown_or_revoked_key(client, memory):
    key, record = memory.create_api_key("gone", agent_ids=["alice"])
    memory.revoke_api_key(str(record.id))
    for headers in ({}, {"X-API-Key": "fm_not-a-key"}, {"X-API-Key": key}):
        answer = client.get("/v1/me", headers=headers)
        assert answer.status_code == 401 and answer.headers["WWW-Authenticate"] == "Bearer"


def test_me_without_keys_is_an_admin(memory):
    with TestClient(create_app(memory, auth=False)) as c:
        assert c.get("/v1/me").json() == {"auth": False, "name": None, "prefix": None, "admin": True, "agent_ids": []}


def test_every_asset_is_served_from_the_package(client):
    assert client.get("/ui", follow_redirects=False).headers["location"] == "/ui/"
    page = client.get("/ui/")
    assert page.status_code == 200 and page.text == ASSETS["index.html"]
    assert "Content-Security-Policy" in page.text and "default-src 'self'" in page.text
    for name, text in ASSETS.items():
        served = client.get(f"/ui/{name}")
        assert served.status_code == 200 and served.text == text, name
    script_type = client.get("/ui/app.js").headers["content-type"].split(";")[0]
    assert script_type in ("text/javascript", "application/javascript")
    viz = (resources.files("fleet_memory.viz") / "assets" / "graph.js").read_text("utf-8")
    assert client.get("/ui/viz/graph.js").text == viz  # the graph page runs viz's own renderer
    assert client.get("/ui/no-such-page.js").status_code == 404


def test_the_pages_fetch_nothing_from_elsewhere_and_keep_the_key_in_the_tab():
    assert {"index.html", "app.css", "app.js", "api.js"} <= set(ASSETS)
    for name, text in ASSETS.items():
        assert not OFFSITE.search(text), name
        assert "localStorage" not in text and "document.cookie" not in text, name
        assert "innerHTML" not in text, name  # stored text is set as text, never as markup
    assert [name for name, text in ASSETS.items() if "sessionStorage" in text] == ["api.js"]
    # one door: every request is api.js's, a REST call with the key header
    assert [name for name, text in ASSETS.items() if "fetch(" in text] == ["api.js"]


@pytest.mark.slow
def test_the_ui_command_serves_the_browser_on_localhost_without_keys(db_url, tmp_path):
    port = free_port()
    env = clean_env(FLEET_MEMORY_DATABASE_URL=db_url, FLEET_MEMORY_HOME=str(tmp_path))
    process = subprocess.Popen([FLEET_MEMORY, "ui", "--no-browser", "--port", str(port)], env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        page = None
        while page is None:
            assert process.poll() is None, process.stdout.read()
            try:
                page = httpx.get(f"http://127.0.0.1:{port}/ui/", timeout=10)
            except httpx.TransportError:
                time.sleep(0.2)
        assert page.status_code == 200 and "app.js" in page.text
        assert httpx.get(f"http://127.0.0.1:{port}/v1/me", timeout=10).json()["auth"] is False
    finally:
        process.terminate()
        output = process.communicate(timeout=300)[0]
    assert f"http://127.0.0.1:{port}/ui/" in output
