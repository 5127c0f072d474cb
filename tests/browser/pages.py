"""Driving the memory browser in the tests: opening pages, signing in, waiting for a page to be
drawn, screenshots, the accessibility checks (``a11y.js`` plus a walk of the Tab key), and the
REST requests the page made (read from Chromium's network log, to replay them)."""

from __future__ import annotations

import json
from pathlib import Path

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support import expected_conditions as ec
from selenium.webdriver.support.ui import WebDriverWait

from .conftest import SHOTS

A11Y = (Path(__file__).parent / "a11y.js").read_text("utf-8")
WAIT_S = 60  # how long a page may take on a loaded machine; a wait, never an assertion on time


def wait(driver, condition):
    return WebDriverWait(driver, WAIT_S).until(condition)


def find(driver, css: str):
    return wait(driver, ec.visibility_of_element_located((By.CSS_SELECTOR, css)))


def open_page(driver, url: str, route: str) -> None:
    """Go to ``/ui/#/route`` and wait until that page is drawn."""
    target = f"{url}/ui/#/{route}"
    same = driver.current_url == target  # going to the same address again draws nothing new: reload
    driver.execute_script("document.body && document.body.removeAttribute('data-page-ready')")
    driver.refresh() if same else driver.get(target)
    wait(driver, lambda d: d.execute_script("return document.body.getAttribute('data-page-ready')"))


def wait_drawn(driver) -> None:
    wait(driver, lambda d: d.execute_script("return document.body.getAttribute('data-page-ready')"))


def sign_in(driver, url: str, key: str) -> None:
    driver.get(f"{url}/ui/")
    driver.execute_script("sessionStorage.clear()")
    driver.get(f"{url}/ui/#/signin")
    box = find(driver, "input[name=api-key]")
    box.send_keys(key)
    driver.find_element(By.CSS_SELECTOR, "main form button[type=submit]").click()
    wait(driver, lambda d: d.execute_script("return location.hash") == "#/agents"
         and d.execute_script("return document.body.getAttribute('data-page-ready')") == "#/agents")


def search(driver, url: str, agent: str, text: str, compare: bool = False) -> list[str]:
    """Run a search on the agent's search page; the texts of the (first) ranking's results."""
    open_page(driver, url, f"agents/{agent}/search")
    find(driver, "input[name=query]").send_keys(text)
    if compare:
        driver.find_element(By.NAME, "compare").click()
    before = driver.execute_script("return document.body.getAttribute('data-search-done')")
    driver.find_element(By.CSS_SELECTOR, "form[role=search] button[type=submit]").click()
    wait(driver, lambda d: d.execute_script("return document.body.getAttribute('data-search-done')") != before)
    return [a.text for a in driver.find_elements(By.CSS_SELECTOR, ".ranking:first-child .result .text a")]


def main_text(driver) -> str:
    return driver.find_element(By.TAG_NAME, "main").text


def shot(driver, name: str) -> Path:
    path = SHOTS / f"{name}.png"
    driver.save_screenshot(str(path))
    return path


def accessibility_problems(driver) -> list[str]:
    """``a11y.js``'s problems, plus the Tab key's walk: from the skip link, each Tab must reach the
    next focusable element in document order, and the focused element must show an outline."""
    found = driver.execute_script("return " + A11Y[A11Y.index("(function"):])  # after the leading comment
    problems, order = list(found["problems"]), found["order"]
    driver.execute_script("document.querySelector('a.skip').focus()")
    seen = [driver.execute_script("return document.activeElement.getAttribute('data-a11y-i')")]
    for _ in range(4 * len(order) + 10):
        if seen[-1] == order[-1]:
            break
        ActionChains(driver).send_keys(Keys.TAB).perform()
        here, ring = driver.execute_script(
            "var e = document.activeElement, s = getComputedStyle(e);"
            "return [e.getAttribute('data-a11y-i'), s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) >= 2];")
        if not ring:
            problems.append(f"no visible focus on element {here}")
        if here != seen[-1]:
            seen.append(here)
    if seen != order:
        problems.append(f"focus order {seen} is not the document order {order}")
    return problems


def sent_requests(driver) -> list[dict]:
    """Every request the page sent since the last call (Chromium's network log): method, URL,
    body and the API key header."""
    sent = []
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message["method"] == "Network.requestWillBeSent":
            request = message["params"]["request"]
            sent.append({"method": request["method"], "url": request["url"], "body": request.get("postData"),
                         "key": request["headers"].get("X-API-Key")})
    return sent


def offsite(sent: list[dict]) -> list[str]:
    """The URLs among ``sent`` that are not on this machine (there should be none: no CDN)."""
    return [r["url"] for r in sent if not r["url"].startswith(("http://127.0.0.1", "data:", "blob:"))]


def console_errors(driver) -> list[str]:
    """The page's console errors, less the 401 that the first GET /v1/me answers before sign-in."""
    return [e["message"] for e in driver.get_log("browser")
            if e["level"] == "SEVERE" and not ("/v1/me" in e["message"] and "401" in e["message"])]
