"""The memory browser's pages in Chromium: sign in, agents, memories, one memory, search with its
explanations, an edit that keeps both versions, forgetting, merging entities and the graph; each
page is screenshotted and passes the accessibility checks (``pages.accessibility_problems``)."""

from __future__ import annotations

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from .conftest import ALICE, IN_A_BROWSER
from .pages import (accessibility_problems, console_errors, find, main_text, offsite, open_page, search,
                    sent_requests, shot, sign_in, wait, wait_drawn)

pytestmark = IN_A_BROWSER


def _checked(driver, name: str, height: int = 900) -> None:
    """Screenshot the page (``height`` pixels of it) and hold it to the accessibility checks."""
    driver.set_window_size(1280, height)
    try:
        shot(driver, name)
    finally:
        driver.set_window_size(1280, 900)
    problems = accessibility_problems(driver)
    assert problems == [], "\n".join(problems)


def _confirm(driver, verb: str) -> None:
    button = find(driver, "dialog.confirm[open] button.danger")
    assert button.text == verb
    button.click()


def test_sign_in_then_the_agents_and_memories_of_the_key(browser, seeded):
    browser.get(f"{seeded.url}/ui/")
    browser.execute_script("sessionStorage.clear()")
    open_page(browser, seeded.url, "signin")
    _checked(browser, "sign-in")
    find(browser, "input[name=api-key]").send_keys("fm_not-a-key")
    browser.find_element(By.CSS_SELECTOR, "main form button[type=submit]").click()
    assert "invalid or revoked API key" in find(browser, "main .error").text

    sign_in(browser, seeded.url, seeded.alice_key)
    assert "alice" in main_text(browser) and "bob" not in main_text(browser)
    cells = [td.text for td in browser.find_elements(By.CSS_SELECTOR, "tbody td")]
    assert "6" in cells  # alice's units
    assert "small (under 5000 units)" in cells and "2025-01-01 00:00" in cells  # size class, last write (any key)
    _checked(browser, "agents")
    assert browser.current_url.find(seeded.alice_key) == -1
    assert browser.execute_script("return localStorage.length") == 0

    seeded.memory.clock.advance(days=50)  # the forgetting curve: importance now is the stored one × e^-1
    browser.find_element(By.LINK_TEXT, "alice").click()
    wait(browser, lambda d: d.execute_script("return document.body.getAttribute('data-page-ready')")
         == "#/agents/alice/memories")
    rows = [a.text for a in browser.find_elements(By.CSS_SELECTOR, "a.unit-link")]
    assert rows == [t for t, _ in sorted(ALICE, key=lambda item: item[1])]  # oldest first
    headers = [th.text for th in browser.find_elements(By.CSS_SELECTOR, "thead th")]
    assert headers[3:5] == ["Importance now", "Stored importance"]
    first = [td.text for td in browser.find_element(By.CSS_SELECTOR, "tbody tr").find_elements(By.TAG_NAME, "td")]
    assert float(first[3]) == pytest.approx(float(first[4]) / 2.71828, abs=0.006)
    _checked(browser, "memories")
    assert offsite(sent_requests(browser)) == []
    assert console_errors(browser) == []


def test_search_shows_channels_path_and_factors_beside_plain_vector_search(browser, seeded):
    sign_in(browser, seeded.url, seeded.alice_key)
    found = search(browser, seeded.url, "alice", "Where did Maria move?", compare=True)
    assert found[0] == "Maria moved to Lisbon in March."
    assert browser.find_element(By.CSS_SELECTOR, ".side-by-side .ranking:nth-child(2) h2").text == "Plain vector search"
    first = browser.find_element(By.CSS_SELECTOR, ".result")
    channels = [li.text for li in first.find_elements(By.CSS_SELECTOR, ".channels li")]
    assert "entity" in channels and "vector" in channels
    first.find_element(By.CSS_SELECTOR, "details.explanation summary").click()
    factors = {row.find_element(By.TAG_NAME, "th").text for row in first.find_elements(By.CSS_SELECTOR, ".factors tr")}
    assert {"relevance", "recency", "importance"} <= factors
    assert first.find_element(By.CSS_SELECTOR, ".path li").text.startswith("entry point: ")
    _checked(browser, "search", height=1250)  # docs/images/ui-search.png
    browser.set_window_size(400, 900)  # a narrow window: one column, nothing wider than the screen
    try:
        page = "document.documentElement"
        assert browser.execute_script(f"return {page}.scrollWidth <= {page}.clientWidth")
        shot(browser, "search-narrow")
    finally:
        browser.set_window_size(1280, 900)
    first.find_element(By.CSS_SELECTOR, ".text a").click()
    wait_drawn(browser)
    assert "Maria moved to Lisbon in March." in main_text(browser)
    assert [r["method"] for r in sent_requests(browser) if r["url"].endswith("/search")] == ["POST", "POST"]


def test_editing_a_fact_keeps_both_versions_in_its_history(browser, seeded):
    sign_in(browser, seeded.url, seeded.alice_key)
    open_page(browser, seeded.url, "agents/alice/memories")
    browser.find_element(By.LINK_TEXT, "Our letting agent is Foxtons.").click()
    box = find(browser, "textarea[name=content]")
    _checked(browser, "memory")
    old_hash = browser.execute_script("return location.hash")
    box.clear()
    box.send_keys("Our letting agent is Hamptons now.")
    browser.find_element(By.CSS_SELECTOR, "form[aria-labelledby=edit-title] button[type=submit]").click()
    _confirm(browser, "Save")
    wait(browser, lambda d: d.execute_script("return location.hash") != old_hash
         and d.execute_script("return document.body.getAttribute('data-page-ready')") == d.execute_script(
             "return location.hash"))
    versions = [row.find_elements(By.TAG_NAME, "td")[1].text
                for row in browser.find_elements(By.CSS_SELECTOR, "section[aria-labelledby=versions-title] tbody tr")]
    assert versions == ["Our letting agent is Foxtons.", "Our letting agent is Hamptons now. (this version)"]
    _checked(browser, "memory-history")
    history = seeded.memory.history("alice", old_hash.rsplit("/", 1)[1])
    assert [u.text for u in history] == ["Our letting agent is Foxtons.", "Our letting agent is Hamptons now."]


def test_a_forgotten_memory_is_gone_fromsearch(browser, seeded):
    sign_in(browser, seeded.url, seeded.alice_key)
    dentist = "The dentist appointment is on Friday at nine."
    assert dentist in search(browser, seeded.url, "alice", "dentist appointment")
    browser.find_element(By.LINK_TEXT, dentist).click()
    find(browser, "button.danger").click()
    _confirm(browser, "Forget")
    wait(browser, lambda d: d.execute_script("return document.body.getAttribute('data-page-ready')")
         == "#/agents/alice/memories")
    assert dentist not in main_text(browser)
    assert dentist not in search(browser, seeded.url, "alice", "dentist appointment")
    assert dentist not in [u.text for u in seeded.memory.list_units("alice").units]


def test_merging_two_entities_and_the_entity_page(browser, seeded):
    sign_in(browser, seeded.url, seeded.alice_key)
    open_page(browser, seeded.url, "agents/alice/entities")
    names = [a.text for a in browser.find_elements(By.CSS_SELECTOR, "tbody td:first-child a")]
    assert {"Sofia", "Ines", "Maria"} <= set(names)
    _checked(browser, "entities")
    browser.find_element(By.NAME, "keep").send_keys("Ines")
    browser.find_element(By.NAME, "drop").send_keys("Sofia")
    browser.find_element(By.CSS_SELECTOR, "form[aria-labelledby=merge-title] button[type=submit]").click()
    _confirm(browser, "Merge")
    wait(browser, lambda d: d.execute_script("return document.body.getAttribute('data-page-ready')")
         == "#/agents/alice/entities/Ines")
    assert "aliases: Sofia" in main_text(browser)
    mentions = [a.text for a in browser.find_elements(By.CSS_SELECTOR, "main section ul li a")]
    assert {"Sofia plays the cello every Sunday.", "Ines sent the cello photos from Porto."} <= set(mentions)
    _checked(browser, "entity")
    remaining = {e.name for e in seeded.memory.list_entities("alice")}
    assert "Sofia" not in remaining and "Ines" in remaining


def test_the_graph_around_an_entity_opens_a_memory_on_click(browser, seeded):
    sign_in(browser, seeded.url, seeded.alice_key)
    open_page(browser, seeded.url, "agents/alice/graph?entity=Maria")
    wait(browser, lambda d: d.execute_script("return document.body.getAttribute('data-rendered')") == "true")
    circles = browser.find_elements(By.CSS_SELECTOR, "#graph circle.node")
    assert len(circles) >= 1
    _checked(browser, "graph")
    unit = circles[0].get_attribute("data-id")
    browser.execute_script("arguments[0].dispatchEvent(new MouseEvent('click', {bubbles: true}))", circles[0])
    wait(browser, lambda d: d.execute_script("return document.body.getAttribute('data-page-ready')")
         == f"#/agents/alice/memories/{unit}")
    browser.execute_script("document.body.removeAttribute('data-rendered')")
    browser.find_element(By.LINK_TEXT, "Graph around this memory").click()  # a search for its text, traced
    wait(browser, lambda d: d.execute_script("return document.body.getAttribute('data-rendered')") == "true")
    assert browser.find_element(By.ID, "trace-toggle").is_selected()
    assert unit in [c.get_attribute("data-id") for c in browser.find_elements(By.CSS_SELECTOR, "circle.traced")]
    assert console_errors(browser) == []


def _filter(driver, url: str, **fields: str) -> list[str]:
    """Fill the memories page's filter form by keyboard (text typed, Enter to submit) and return
    the texts listed once the filtered page is drawn."""
    open_page(driver, url, "agents/alice/memories")
    for name, value in fields.items():
        box = find(driver, f"#memory-filters [name={name}]")
        if box.get_attribute("type") == "checkbox":
            box.send_keys(Keys.SPACE)
        elif box.get_attribute("type") == "datetime-local":  # its keystrokes depend on the locale
            driver.execute_script("arguments[0].value = arguments[1]", box, value)
        else:
            box.send_keys(value)
    before = driver.execute_script("return location.hash")
    find(driver, "#memory-filters [name=q]").send_keys(Keys.ENTER)
    wait(driver, lambda d: d.execute_script("return location.hash") != before and d.execute_script(
        "return document.body.getAttribute('data-page-ready')") == d.execute_script("return location.hash"))
    return [a.text for a in driver.find_elements(By.CSS_SELECTOR, "a.unit-link")]


def test_the_memories_page_filters_on_the_server(browser, seeded):
    sign_in(browser, seeded.url, seeded.alice_key)
    assert _filter(browser, seeded.url, q="cello") == ["Sofia plays the cello every Sunday.",
                                                       "Ines sent the cello photos from Porto."]
    assert find(browser, "#memory-filters [name=q]").get_attribute("value") == "cello"  # kept in the address
    _checked(browser, "memories-filtered")
    assert _filter(browser, seeded.url, since="2024-03-01T00:00", until="2024-05-01T00:00") == [
        "Maria moved to Lisbon in March.", "Ines sent the cello photos from Porto."]
    assert _filter(browser, seeded.url, q="cello", user_id="nobody") == []
    assert "No memories on this page." in main_text(browser)
    _filter(browser, seeded.url, metadata="{project")
    assert "metadata: is not JSON" in find(browser, "main .error").text
    sent = [r["url"] for r in sent_requests(browser) if "/memories?" in r["url"]]
    assert any("q=cello" in u and "user_id=nobody" in u for u in sent)
    assert console_errors(browser) == [] or all("422" in e for e in console_errors(browser))


def test_a_memory_page_shows_its_document_entities_and_links_and_archives(browser, seeded):
    seeded.memory.put("alice", "Maria found a flat in Lisbon the same day.", event_date="2024-03-10T09:00:00Z")
    sign_in(browser, seeded.url, seeded.alice_key)
    open_page(browser, seeded.url, "agents/alice/memories")
    browser.find_element(By.LINK_TEXT, "Maria moved to Lisbon in March.").click()
    assert find(browser, "blockquote.document mark").text == "Maria moved to Lisbon in March."
    entities = [a.text for a in browser.find_elements(By.CSS_SELECTOR, "section[aria-labelledby=entities-title] li a")]
    assert entities == ["Lisbon", "Maria"]
    links = browser.find_elements(By.CSS_SELECTOR, "section[aria-labelledby=links-title] tbody tr")
    kinds = {row.find_element(By.TAG_NAME, "td").text for row in links}
    assert {"entity", "temporal"} <= kinds <= {"semantic", "entity", "temporal"}
    assert "Maria found a flat in Lisbon the same day." in [a.text for a in browser.find_elements(By.CSS_SELECTOR, "a.linked-unit")]
    _checked(browser, "memory-around", height=1400)
    here = browser.execute_script("return location.hash")
    browser.find_element(By.XPATH, "//main//button[text()='Archive']").click()
    _confirm(browser, "Archive")
    wait(browser, lambda d: d.find_elements(By.XPATH, "//main//button[text()='Restore']"))
    assert "archived " in main_text(browser) and browser.execute_script("return location.hash") == here
    unit_id = here.rsplit("/", 1)[1]
    assert seeded.memory.get("alice", unit_id).archived_at is not None
    browser.find_element(By.XPATH, "//main//button[text()='Restore']").click()
    _confirm(browser, "Restore")
    wait(browser, lambda d: d.find_elements(By.XPATH, "//main//button[text()='Archive']"))
    assert seeded.memory.get("alice", unit_id).archived_at is None
    assert console_errors(browser) == []


def test_facts_that_changed_for_an_entity(browser, seeded):
    [old] = [u for u in seeded.memory.list_units("alice").units if u.text == "Our letting agent is Foxtons."]
    seeded.memory.update("alice", old.id, "Our letting agent is Hamptons now.", event_date="2024-07-01T00:00:00Z")
    sign_in(browser, seeded.url, seeded.alice_key)
    open_page(browser, seeded.url, "agents/alice/entities/Foxtons")
    browser.find_element(By.LINK_TEXT, "Facts about Foxtons that changed").click()
    wait(browser, lambda d: d.execute_script("return document.body.getAttribute('data-page-ready')")
         == "#/agents/alice/facts?entity=Foxtons")
    [line] = browser.find_elements(By.CSS_SELECTOR, "section.fact-line")
    versions = [li.text for li in line.find_elements(By.CSS_SELECTOR, "ol li")]
    assert versions == ["stated 2024-01-05 00:00: Our letting agent is Foxtons. · replaced 2024-07-01 00:00 — the relation rule",
                        "stated 2024-07-01 00:00: Our letting agent is Hamptons now. · current"]
    assert line.find_element(By.TAG_NAME, "h2").text == "relation · 2 versions"
    _checked(browser, "facts")
    holder = find(browser, "#facts-holder [name=entity]")
    holder.clear()
    holder.send_keys("Nobody at all", Keys.ENTER)  # by keyboard
    wait(browser, lambda d: "Nobody" in (d.execute_script("return document.body.getAttribute('data-page-ready')") or ""))
    assert find(browser, "main .error").text == "entity Nobody at all not found for agent 'alice'"
