"""No process is left behind, with real processes and signals: the embedded
PostgreSQL stops after its owner is killed, a stale owner list is repaired at start, and
``fleet-memory serve`` shuts down cleanly on SIGTERM even while a request runs, answering it first."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import psutil
import psycopg
import pytest

from fleet_memory import Config, FleetMemory

pytestmark = pytest.mark.processes  # servers and owners in processes of their own

OWNER = ("import sys, time\nfrom pathlib import Path\nfrom fleet_memory import Config, FleetMemory\n"
         "m = FleetMemory(Config(home=Path(sys.argv[1])))\nprint('ready', flush=True)\n"
         "if sys.argv[2] == 'stay':\n    time.sleep(600)\nm.close()\n")
FLEET_MEMORY = shutil.which("fleet-memory", path=str(Path(sys.executable).parent))


def _env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("FLEET_MEMORY_")}
    return {**env, "FLEET_MEMORY_HOME": str(home), "PYTHONPATH": os.pathsep.join(sys.path)}


def _owner(home: Path, mode: str) -> subprocess.Popen:
    proc = subprocess.Popen([sys.executable, "-c", OWNER, str(home), mode], stdout=subprocess.PIPE, text=True,
                            env=_env(home))
    assert proc.stdout.readline().strip() == "ready"
    return proc


def _postmaster(home: Path) -> int | None:
    try:
        pid = int((home / "pg" / "postmaster.pid").read_text().split("\n", 1)[0])
    except (OSError, ValueError):
        return None
    return pid if psutil.pid_exists(pid) and psutil.Process(pid).status() != psutil.STATUS_ZOMBIE else None


def _gone(pid: int | None, within_s: float = 60) -> bool:
    """Wait (bounded) for ``pid`` to exit; a condition with a deadline, not a speed measurement."""
    deadline = time.monotonic() + within_s
    while pid is not None and time.monotonic() < deadline:
        if not psutil.pid_exists(pid) or psutil.Process(pid).status() == psutil.STATUS_ZOMBIE:
            return True
        time.sleep(0.2)
    return pid is None or not psutil.pid_exists(pid)


def _key_claimed(home: Path, key: str) -> bool:
    """Whether a request with Idempotency-Key ``key`` has claimed it, read straight from the
    embedded server (postmaster.pid's fourth and fifth lines: port and socket directory)."""
    lines = (home / "pg" / "postmaster.pid").read_text().split("\n")
    with psycopg.connect(host=lines[4], port=lines[3], user="postgres", dbname="fleet_memory") as conn:
        return conn.execute("SELECT 1 FROM idempotency_keys WHERE key = %s", (key,)).fetchone() is not None


def _until(condition, within_s: float) -> bool:
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return False


@pytest.fixture
def spawned():
    """Processes a test starts; any still running at its end (a failed assertion) is killed."""
    procs: list[subprocess.Popen] = []
    yield procs
    for proc in procs:
        if proc.poll() is None:
            proc.kill()
            proc.wait(30)


@pytest.fixture
def home(tmp_path):
    yield tmp_path / "home"
    pid = _postmaster(tmp_path / "home")
    if pid is not None:  # never leave one behind, whatever the test did
        os.kill(pid, signal.SIGINT)
        _gone(pid, 30)


def test_the_server_stops_after_its_owner_is_killed(home) -> None:
    owner = _owner(home, "stay")
    postmaster = _postmaster(home)
    assert postmaster is not None
    owner.kill()  # SIGKILL: no exit hook runs
    owner.wait()
    assert _gone(postmaster), "the embedded PostgreSQL outlived its only owner"


def test_a_stale_owner_list_is_repaired_at_start(home) -> None:
    _owner(home, "leave").wait()  # creates and stops the server once
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    (home / "pg" / ".handle_pids.json").write_text(json.dumps([dead.pid]))  # as a killed owner leaves it
    owner = _owner(home, "leave")
    postmaster = _postmaster(home)
    owner.wait()
    assert json.loads((home / "pg" / ".handle_pids.json").read_text()) == []
    assert _gone(postmaster, 10), "a stale owner pid kept the server running after its last real owner left"


def test_a_recycled_owner_pid_does_not_keep_the_server_running(home) -> None:
    owner = _owner(home, "stay")
    postmaster = _postmaster(home)
    stranger = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])  # never an owner
    try:  # as a killed owner with the stranger's pid left the files: its start time, then its pid
        pgdata = home / "pg"
        starts = json.loads((pgdata / ".fm_owner_starts.json").read_text())
        assert list(starts) == [str(owner.pid)]
        starts[str(stranger.pid)] = psutil.Process(stranger.pid).create_time() - 3600
        (pgdata / ".fm_owner_starts.json").write_text(json.dumps(starts))
        (pgdata / ".handle_pids.json").write_text(json.dumps([stranger.pid, owner.pid]))
        owner.kill()
        owner.wait()
        assert _gone(postmaster, 30), "a live process reusing a dead owner's pid kept the server running"
        assert stranger.poll() is None
    finally:
        stranger.kill()
        stranger.wait()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.models
def test_serve_shuts_down_on_sigterm_mid_request_and_stops_postgres(home, spawned) -> None:
    port = _free_port()
    serve = subprocess.Popen([FLEET_MEMORY, "serve", "--no-auth", "--port", str(port), "--shutdown-timeout", "240"],
                             env=_env(home), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    spawned.append(serve)
    base = f"http://127.0.0.1:{port}"
    for _ in range(600):
        try:
            if httpx.get(f"{base}/health", timeout=1).status_code == 200:
                break
        except httpx.HTTPError:
            time.sleep(0.2)
    postmaster = _postmaster(home)
    assert postmaster is not None
    content = " ".join(f"Alice visited city number {i} with Bob." for i in range(400))
    answers: list = []

    def put() -> None:
        with httpx.Client(timeout=120) as client:
            answers.append(client.post(f"{base}/v1/agents/a1/memories", json={"content": content},
                                       headers={"Idempotency-Key": "sigterm-1"}))

    worker = threading.Thread(target=put, daemon=True)
    worker.start()
    # the put runs inside the server once its key is claimed (a row committed before the work starts);
    # a request still unread in the socket when SIGTERM comes is not in flight: uvicorn closes it
    assert _until(lambda: answers or _key_claimed(home, "sigterm-1"), 60), "the put never started"
    assert not answers, "the put was answered before SIGTERM: nothing was mid-request"
    serve.send_signal(signal.SIGTERM)
    signalled = time.monotonic()
    try:
        code = serve.wait(300)
    except subprocess.TimeoutExpired:
        serve.kill()
        pytest.fail("serve did not exit after SIGTERM")
    stopped, answered = time.monotonic() - signalled, worker.join(30) or answers
    assert code in (0, 128 + signal.SIGTERM)
    assert _gone(postmaster, 10), "the embedded PostgreSQL outlived serve"
    # the put in flight ran to its answer (before: cancelled after 5 s and answered 500 though committed)
    assert answered and answered[0].status_code == 201, answered and answered[0].text
    stored = {u["id"] for u in answered[0].json()["units"]}
    with FleetMemory(Config(home=home)) as memory:
        assert stored and stored <= {str(u.id) for u in memory.list_units("a1", limit=1000).units}
    print(f"serve stopped {stopped:.1f} s after SIGTERM, answering its put {answered[0].status_code}")
