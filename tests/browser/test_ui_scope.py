"""A key scoped to one agent sees nothing of another, in the page and underneath it: the pages
of ``bob`` opened with ``alice``'s key show the refusal only, and every REST request the browser
made for ``bob`` (reads, a search, archive and restore, a forget), replayed with ``alice``'s key, is refused without a
word of ``bob``'s memories — while the same requests with ``bob``'s key are answered."""

from __future__ import annotations

import httpx
from selenium.webdriver.common.by import By

from .conftest import IN_A_BROWSER, BOB_OTHER, BOB_SECRET
from .pages import accessibility_problems, find, main_text, open_page, search, sent_requests, shot, sign_in, wait

pytestmark = IN_A_BROWSER


def test_alices_key_opens_no_page_of_bob(browser, seeded):
    sign_in(browser, seeded.url, seeded.alice_key)
    for route in ("agents/bob/memories", "agents/bob/entities", "agents/bob/graph", "agents/bob/facts?user_id=u1"):
        open_page(browser, seeded.url, route)
        assert "this API key may not act for agent 'bob'" in main_text(browser)
        assert "4417" not in browser.page_source and "spare key" not in browser.page_source
    shot(browser, "scope-refused")
    assert accessibility_problems(browser) == []
    assert search(browser, seeded.url, "bob", "vault code") == []
    assert "may not act for agent 'bob'" in find(browser, "#search-results .error").text
    assert "4417" not in browser.page_source


def _bobs_pages(browser, url: str) -> None:
    """Every page of bob's, as bob sees them, ending with forgetting one memory."""
    for route in ("agents", "agents/bob/memories", "agents/bob/entities", "agents/bob/graph",
                  "agents/bob/facts?user_id=u1"):
        open_page(browser, url, route)
    assert BOB_SECRET in search(browser, url, "bob", "vault code")
    browser.find_element(By.LINK_TEXT, BOB_SECRET).click()
    wait(browser, lambda d: "Versions" in main_text(d) and "Source document" in main_text(d))
    for verb, then in (("Archive", "Restore"), ("Restore", "Archive")):  # archived, then back
        browser.find_element(By.XPATH, f"//main//button[text()='{verb}']").click()
        find(browser, "dialog.confirm[open] button.danger").click()
        wait(browser, lambda d: d.find_elements(By.XPATH, f"//main//button[text()='{then}']"))
    open_page(browser, url, "agents/bob/memories")
    browser.find_element(By.LINK_TEXT, BOB_OTHER).click()
    find(browser, "button.danger").click()
    find(browser, "dialog.confirm[open] button.danger").click()
    wait(browser, lambda d: d.execute_script("return document.body.getAttribute('data-page-ready')")
         == "#/agents/bob/memories")


def _replay(request: dict, key: str) -> httpx.Response:
    headers = {"X-API-Key": key, "Content-Type": "application/json"}
    return httpx.request(request["method"], request["url"], headers=headers, content=request["body"], timeout=60)


def test_bobs_requests_replayed_with_alices_key_are_refused(browser, seeded):
    sign_in(browser, seeded.url, seeded.bob_key)
    sent_requests(browser)  # from here on: bob's pages only
    _bobs_pages(browser, seeded.url)
    made = [r for r in sent_requests(browser) if "/v1/agents/bob" in r["url"]]
    kinds = {(r["method"], r["url"].split("/v1/agents/bob")[1].split("?")[0].split("/")[1]) for r in made}
    assert {("GET", "memories"), ("GET", "stats"), ("GET", "entities"), ("GET", "graph"), ("POST", "search"),
            ("DELETE", "memories"), ("GET", "facts"), ("GET", "size")} <= kinds
    tails = {(r["method"], r["url"].split("?")[0].rsplit("/", 1)[1]) for r in made if "/memories/" in r["url"]}
    assert {("GET", "entities"), ("GET", "links"), ("GET", "document"), ("GET", "history"), ("POST", "archive"),
            ("POST", "restore")} <= tails  # the memory page's requests
    assert all(r["key"] == seeded.bob_key and seeded.bob_key not in r["url"] for r in made)
    [forgotten] = [r["url"].rsplit("/", 1)[1] for r in made if r["method"] == "DELETE"]
    for request in made:
        refused = _replay(request, seeded.alice_key)
        assert refused.status_code == 403, (request, refused.text)
        assert "4417" not in refused.text and "spare key" not in refused.text
        if request["method"] == "GET":  # bob's own key still reads it (but for the memory forgotten since)
            assert _replay(request, seeded.bob_key).status_code == (404 if forgotten in request["url"] else 200)
    assert [u.text for u in seeded.memory.list_units("bob").units] == [BOB_SECRET]
