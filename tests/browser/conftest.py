"""The memory browser in a real browser: Debian's headless Chromium driven by chromium-driver
(selenium), against a real uvicorn serving the REST app over a seeded embedded store. Pages
reach nothing off this machine: a proxy to nowhere stands for every host but loopback.

``seeded``: two agents (``alice``, ``bob``), a key for each, an admin key, and the server's URL.
``browser``: one Chromium per module. ``SHOTS``: where each page's screenshot goes
(``FLEET_MEMORY_UI_SCREENSHOTS``, default ``build/ui-screenshots``)."""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Iterator

import pytest

from fleet_memory import Config, FleetMemory
from fleet_memory.providers.embedder import HashingEmbedder
from tests.support.rule_nlp import RuleNLP
from tests.support.servers import real_server

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")
REPO = Path(__file__).resolve().parents[2]
SHOTS = Path(os.environ.get("FLEET_MEMORY_UI_SCREENSHOTS") or REPO / "build" / "ui-screenshots")
PEOPLE = {"Maria": "PERSON", "Sofia": "PERSON", "Ines": "PERSON", "Lisbon": "GPE", "Foxtons": "ORG",
          "Hamptons": "ORG", "Porto": "GPE"}
ALICE = [  # (text, event date)
    ("Maria moved to Lisbon in March.", "2024-03-10"),
    ("Our letting agent is Foxtons.", "2024-01-05"),
    ("Sofia plays the cello every Sunday.", "2024-02-01"),
    ("Ines sent the cello photos from Porto.", "2024-04-02"),
    ("The dentist appointment is on Friday at nine.", "2024-05-20"),
    ("I bought a green road bike in June.", "2024-06-15"),
]
BOB_SECRET = "The vault code for Bob is 4417."
BOB_OTHER = "The spare key hangs in the shed."


IN_A_BROWSER = [pytest.mark.browser,  # each test module's pytestmark: make test runs them, make check does not
                pytest.mark.skipif(CHROMIUM is None or CHROMEDRIVER is None,
                                   reason="Debian's chromium and chromium-driver are not installed (make system-deps)")]


@dataclass(frozen=True)
class Seeded:
    url: str
    memory: FleetMemory
    alice_key: str
    bob_key: str
    admin_key: str


@pytest.fixture
def seeded(db_url, clock) -> Iterator[Seeded]:
    config = Config(database_url=db_url)
    with FleetMemory(config, embedder=HashingEmbedder(), clock=clock, nlp=RuleNLP(PEOPLE)) as memory:
        for text, day in ALICE:
            memory.put("alice", text, event_date=datetime.fromisoformat(day).replace(tzinfo=timezone.utc))
        memory.put("bob", BOB_SECRET)
        memory.put("bob", BOB_OTHER)
        alice, _ = memory.create_api_key("ui-alice", agent_ids=["alice"])
        bob, _ = memory.create_api_key("ui-bob", agent_ids=["bob"])
        admin, _ = memory.create_api_key("ui-admin", admin=True)
        with real_server(memory) as url:
            yield Seeded(url, memory, alice, bob, admin)


@pytest.fixture(scope="module")
def browser():
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    options = Options()
    options.binary_location = CHROMIUM
    for arg in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                "--proxy-server=127.0.0.1:9", "--window-size=1280,900"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    driver = webdriver.Chrome(options=options, service=Service(executable_path=CHROMEDRIVER))
    driver.set_window_size(1280, 900)
    SHOTS.mkdir(parents=True, exist_ok=True)
    yield driver
    driver.quit()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """On a failure, keep what the browser showed: a screenshot and the page's text in the report."""
    outcome = yield
    report = outcome.get_result()
    driver = item.funcargs.get("browser") if hasattr(item, "funcargs") else None
    if report.when == "call" and report.failed and driver is not None:
        driver.save_screenshot(str(SHOTS / f"FAILED-{item.name}.png"))
        page = driver.execute_script("return location.href + '\\n' + document.body.innerText")
        report.sections.append(("browser page", page))
