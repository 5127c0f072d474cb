"""The memory browser on a server without keys (``fleet-memory ui``, ``serve --no-auth``): no
sign-in, every agent listed, nothing to sign out of."""

from __future__ import annotations

from selenium.webdriver.common.by import By

from tests.support.servers import real_server

from .conftest import IN_A_BROWSER
from .pages import accessibility_problems, main_text, open_page, shot

pytestmark = IN_A_BROWSER


def test_without_keys_the_browser_opens_on_every_agent(browser, seeded):
    with real_server(seeded.memory, auth=False) as url:
        browser.get(f"{url}/ui/")
        browser.execute_script("sessionStorage.clear()")
        open_page(browser, url, "agents")
        assert browser.execute_script("return location.hash") == "#/agents"
        agents = [a.text for a in browser.find_elements(By.CSS_SELECTOR, "tbody td:first-child a")]
        assert agents == ["alice", "bob"]
        assert "runs without keys" in main_text(browser) and not browser.find_elements(By.ID, "sign-out")
        shot(browser, "keyless-agents")
        assert accessibility_problems(browser) == []
