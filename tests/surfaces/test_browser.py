"""The demo's interactive graph in a real browser: Debian's headless Chromium, network off
(own network namespace when possible, plus a proxy to nowhere), reading the page from a file."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = [pytest.mark.browser,
              pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed (make system-deps)")]


def _offline_prefix() -> list[str]:
    unshare = shutil.which("unshare")
    if unshare and subprocess.run([unshare, "-n", "true"], capture_output=True).returncode == 0:
        return [unshare, "-n"]
    return []


def _chromium(*args: str) -> subprocess.CompletedProcess:
    command = [*_offline_prefix(), CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu",
               "--disable-background-networking", "--proxy-server=127.0.0.1:9", "--proxy-bypass-list=<-loopback>",
               "--enable-logging=stderr", "--v=0", "--window-size=1280,860", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=120)


def _page_console(run: subprocess.CompletedProcess) -> list[str]:
    """The console lines the page logged: Chromium's own pages (source ``chrome://``) log too, e.g.
    "Slow network is detected" from its composebox on a loaded machine, which says nothing of ours."""
    return [line for line in run.stderr.splitlines() if ":CONSOLE" in line and "source: chrome://" not in line]


@pytest.fixture
def demo_page(cli, tmp_path):
    result = cli("demo", "--out-dir", str(tmp_path))
    assert result.exit_code == 0, result.output
    return tmp_path / "memory_graph_interactive.html", tmp_path / "memory_graph.png"


def test_demo_graph_renders_offline_without_console_errors(demo_page, factory, tmp_path):
    html, png = demo_page
    with factory() as memory:
        units = memory.stats("demo_agent").units
    run = _chromium("--dump-dom", html.as_uri())
    assert run.returncode == 0, run.stderr[-2000:]
    dom = run.stdout
    console = _page_console(run)
    assert console == []  # no errors, no warnings, nothing logged by the page
    assert 'data-rendered="true"' in dom
    assert len(re.findall(r"<circle\b", dom)) == units
    assert f'data-node-count="{units}"' in dom
    edges = re.findall(r'<line class="edge edge-(\w+)"', dom)
    assert "entity" in edges and set(edges) <= {"temporal", "semantic", "entity"}
    assert re.search(r'class="edge edge-temporal"[^>]*stroke="#00bcd4"[^>]*stroke-dasharray="6,4"', dom) or \
        "temporal" not in edges
    assert len(re.findall(r'<circle[^>]*class="[^"]*traced', dom)) >= 1  # the search path is highlighted
    assert png.read_bytes().startswith(b"\x89PNG") and png.stat().st_size > 10_000

    shot = tmp_path / "demo_graph_screenshot.png"
    taken = _chromium(f"--screenshot={shot}", html.as_uri())
    assert taken.returncode == 0, taken.stderr[-2000:]
    assert shot.read_bytes().startswith(b"\x89PNG") and shot.stat().st_size > 10_000


PROBE = """<script>
(function () {
  var circle = document.querySelector("circle.node"), tip = document.getElementById("tooltip");
  var box = circle.getBoundingClientRect();
  circle.dispatchEvent(new MouseEvent("mousemove", {bubbles: true, clientX: box.x + 2, clientY: box.y + 2}));
  document.body.setAttribute("data-probe-tooltip", tip.style.display + "|" + tip.textContent);
  var toggle = document.getElementById("trace-toggle");
  toggle.checked = false; toggle.dispatchEvent(new Event("change"));
  document.body.setAttribute("data-probe-traced-off", String(document.querySelectorAll(".traced").length));
  toggle.checked = true; toggle.dispatchEvent(new Event("change"));
  document.body.setAttribute("data-probe-traced-on", String(document.querySelectorAll("circle.traced").length));
})();
</script>
</body>"""


def test_hover_shows_text_date_importance_and_the_trace_toggles(demo_page, factory, tmp_path):
    html, _ = demo_page
    probed = tmp_path / "probed.html"  # the demo page plus a script that hovers and toggles, run after it
    probed.write_text(html.read_text("utf-8").replace("</body>", PROBE), "utf-8")
    with factory() as memory:
        units = {u.text: u for u in memory.list_units("demo_agent").units}
    run = _chromium("--dump-dom", probed.as_uri())
    assert _page_console(run) == []
    tooltip = re.search(r'data-probe-tooltip="([^"]*)"', run.stdout).group(1)
    display, text = tooltip.split("|", 1)
    shown = next(t for t in units if text.startswith(t))
    assert display == "block"
    assert units[shown].event_date.date().isoformat() in text and f"importance {units[shown].importance:.2f}" in text
    assert re.search(r'data-probe-traced-off="0"', run.stdout)
    assert int(re.search(r'data-probe-traced-on="(\d+)"', run.stdout).group(1)) >= 1
