"""Load and fault soak: a real ``fleet-memory serve`` on 127.0.0.1, killed with SIGKILL and
restarted in the middle, under N client threads.

    python bench/soak.py [--threads 8] [--duration 120] [--agents 40] [--json OUT]
    python bench/soak.py --noisy-neighbour [--noisy-mb 2.0] ...   (bench/noisy.py: one agent floods)

Each thread loops until the time is up, picking an agent of ``--agents`` and a request: a put
(45 %), a search (30 %), a context build (15 %) or an export (10 %). After half the duration the
server process gets SIGKILL and a new one is started on the same port and home (the embedded
PostgreSQL keeps running and is joined); requests meanwhile fail to connect and are counted as
such. The load runs for the other half of the duration after the new server is ready.

"Back" is the first real request answered 2xx after the kill, for each of the two kinds that need
the models: a search (a prober thread asks one as soon as ``/health`` answers) and a put (the
load's own); ``/health`` answering is not back. The restart is printed phase by phase, in seconds
after the kill: the new process, the server's own milestones (``/health/ready`` phases: database
open, embedder and spaCy loaded, heap settled), listening, the first 2xx of each route, ready.

Printed (and written with ``--json``): requests and errors by kind (HTTP status or exception),
p50 / p95 / p99 latency per route before and after the restart, the restart's phases and time to
back, and the check that every acknowledged put (201) is stored whole: after the run, each
agent's export must hold every acknowledged document, with exactly the units (count and texts)
the acknowledgement listed.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter, defaultdict
from pathlib import Path

import httpx

from common import write_report

ROUTES = (("put", 45), ("search", 30), ("context", 15), ("export", 10))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(home: Path, port: int, since: float | None = None) -> tuple[subprocess.Popen, dict]:
    """Start ``serve`` and wait until it is back: a real request (a search of an agent with
    memories) answered 2xx — not merely ``/health``. Returns the process and the seconds from
    ``since`` (the kill; else the start) to each milestone, with the server's own phases."""
    exe = shutil.which("fleet-memory", path=str(Path(sys.executable).parent)) or "fleet-memory"
    env = {**os.environ, "FLEET_MEMORY_HOME": str(home)}
    started = time.monotonic()
    since = started if since is None else since
    log = open(home.parent / f"serve-{port}-{int(started)}.log", "w")  # kept for --logs
    proc = subprocess.Popen([exe, "serve", "--no-auth", "--port", str(port)], env=env,
                            stdout=log, stderr=subprocess.STDOUT)
    timings = {"process_started": started - since}
    base = f"http://127.0.0.1:{port}"
    with httpx.Client(timeout=120) as client:
        timings["listening"] = _until(proc, since, lambda: client.get(f"{base}/health").status_code == 200)
        timings["back_search"] = _until(proc, since, lambda: client.post(
            f"{base}/v1/agents/warmup/search", json={"query": "Who warmed up?", "top_k": 1}).status_code == 200)
        timings["cpu_at_back_search"] = _cpu_seconds(proc.pid)
        timings["ready"] = _until(proc, since, lambda: client.get(f"{base}/health/ready").status_code == 200)
        timings["cpu_at_ready"] = _cpu_seconds(proc.pid)
        phases = client.get(f"{base}/health/ready").json().get("phases") or {}
    # the server's milestones are seconds since its process started: shift them onto the kill clock
    timings["server_phases"] = {k: (v + timings["process_started"] if v is not None else None)
                                for k, v in phases.items()}
    return proc, timings


def _cpu_seconds(pid: int) -> float | None:
    """CPU seconds (user + system) the server process has used so far (Linux), which unlike the
    wall time does not depend on what else the machine runs."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


def _until(proc: subprocess.Popen, since: float, answered) -> float:
    while True:
        try:
            if answered():
                return time.monotonic() - since
        except httpx.HTTPError:
            pass
        if proc.poll() is not None:
            raise SystemExit("the server exited during start-up")
        time.sleep(0.05)


class Soak:
    def __init__(self, base: str, agents: int, seed: int) -> None:
        self.base, self.agents = base, [f"soak-{i:03d}" for i in range(agents)]
        self.rng = random.Random(seed)
        self.phase = "before"
        self.lock = threading.Lock()
        self.latency: dict[tuple[str, str], list[float]] = defaultdict(list)
        self.errors: Counter[tuple[str, str, str]] = Counter()
        self.requests: Counter[str] = Counter()
        self.acked: dict[str, list[dict]] = defaultdict(list)
        self.killed_at: float | None = None
        self.first_ok_after: dict[str, float] = {}  # route → seconds from the kill to its first 2xx

    def request(self, client: httpx.Client, route: str, agent: str, n: int) -> httpx.Response:
        a = f"{self.base}/v1/agents/{agent}"
        if route == "put":
            content = f"Soak {n}: Alice met Bob number {n} in Paris. She gave him a book about {agent}."
            return client.post(f"{a}/memories", json={"content": content})
        if route == "search":
            return client.post(f"{a}/search", json={"query": "Who did Alice meet in Paris?", "top_k": 5})
        if route == "context":
            return client.post(f"{a}/context", json={"message": "What did Alice give Bob?"})
        return client.get(f"{a}/export")

    def worker(self, stop: threading.Event, seed: int) -> None:
        rng = random.Random(seed)
        names, weights = zip(*ROUTES)
        with httpx.Client(timeout=60) as client:
            while not stop.is_set():
                route, agent, n = rng.choices(names, weights)[0], rng.choice(self.agents), rng.getrandbits(40)
                phase, started = self.phase, time.perf_counter()
                try:
                    response = self.request(client, route, agent, n)
                    kind = None if response.status_code < 400 else f"HTTP {response.status_code}"
                except httpx.HTTPError as exc:
                    response, kind = None, type(exc).__name__
                    time.sleep(0.05)
                elapsed = time.perf_counter() - started
                with self.lock:
                    self.requests[phase] += 1
                    if kind:
                        self.errors[(phase, route, kind)] += 1
                    else:
                        self.latency[(route, phase)].append(elapsed)
                        if phase == "after" and route not in self.first_ok_after:
                            self.first_ok_after[route] = time.monotonic() - self.killed_at
                        if route == "put":
                            self.acked[agent].append(response.json())

    def verify(self, client: httpx.Client) -> dict[str, int]:
        checked = lost = wrong = 0
        for agent, acks in self.acked.items():
            lines = [json.loads(line) for line in client.get(f"{self.base}/v1/agents/{agent}/export").text.split("\n")
                     if line]
            docs = {r["row"]["id"] for r in lines if r.get("table") == "documents"}
            units = defaultdict(list)
            for r in lines:
                if r.get("table") == "memory_units":
                    units[r["row"]["document_id"]].append(r["row"]["text"])
            for ack in acks:
                checked += 1
                if ack["document_id"] not in docs:
                    lost += 1
                elif sorted(units[ack["document_id"]]) != sorted(u["text"] for u in ack["units"]):
                    wrong += 1
        return {"acknowledged_puts": checked, "lost": lost, "not_whole": wrong}


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    return statistics.quantiles(values, n=100, method="inclusive")[q - 1] * 1000 if len(values) > 1 else values[0] * 1000


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--threads", type=int, default=8)
    parser.add_argument("--duration", type=float, default=120.0, help="seconds of load")
    parser.add_argument("--agents", type=int, default=40)
    parser.add_argument("--seed", type=int, default=14)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--logs", type=Path, help="copy the servers' logs into this folder")
    parser.add_argument("--noisy-neighbour", action="store_true",
                        help="instead of the restart: one agent floods, the others are measured (bench/noisy.py)")
    parser.add_argument("--noisy-mb", type=float, default=2.0, help="size of each flooding put")
    parser.add_argument("--spammers", type=int, default=2,
                        help="noisy neighbour: threads re-sending the running flood put with its key, back to back")
    parser.add_argument("--rate", type=float, default=0.0,
                        help="noisy neighbour: the other agents' requests per second, open loop (0: closed loops)")
    args = parser.parse_args(argv)
    if args.noisy_neighbour:
        return noisy_neighbour(args)

    with tempfile.TemporaryDirectory(prefix="fm-soak-") as tmp:
        home, port = Path(tmp) / "home", free_port()
        home.mkdir()
        server, first_start = start_server(home, port)
        soak = Soak(f"http://127.0.0.1:{port}", args.agents, args.seed)
        with httpx.Client(timeout=300) as warm:  # the agent whose search says the server is back
            warm.post(f"{soak.base}/v1/agents/warmup/memories", json={"content": "Alice warmed up in Paris."})
        stop = threading.Event()
        threads = [threading.Thread(target=soak.worker, args=(stop, args.seed + i)) for i in range(args.threads)]
        for t in threads:
            t.start()
        time.sleep(args.duration / 2)
        soak.killed_at = time.monotonic()
        server.send_signal(signal.SIGKILL)
        server.wait()
        soak.phase = "after"
        server, restart = start_server(home, port, since=soak.killed_at)
        time.sleep(args.duration / 2)  # as long under load after the restart as before it
        stop.set()
        for t in threads:
            t.join()
        with httpx.Client(timeout=300) as client:
            check = soak.verify(client)
        server.send_signal(signal.SIGTERM)
        server.wait(60)
        if args.logs:
            args.logs.mkdir(parents=True, exist_ok=True)
            for log in Path(tmp).glob("serve-*.log"):
                shutil.copy(log, args.logs / log.name)

    fivexx = sum(n for (_, _, kind), n in soak.errors.items() if kind.startswith("HTTP 5"))
    restart["first_2xx_by_route"] = dict(sorted(soak.first_ok_after.items()))
    back_s = max(restart["back_search"], restart["first_2xx_by_route"].get("put", float("inf")))
    out = {"threads": args.threads, "duration_s": args.duration, "agents": args.agents,
           "requests": dict(soak.requests), "errors": {" ".join(k): n for k, n in sorted(soak.errors.items())},
           "http_5xx": fivexx, "restart_back_s": back_s, "restart": restart, "first_start": first_start,
           "check": check,
           "latency_ms": {f"{r} {p}": {"n": len(v), "p50": pct(v, 50), "p95": pct(v, 95), "p99": pct(v, 99)}
                          for (r, p), v in sorted(soak.latency.items())}}
    print(f"soak: {args.threads} threads, {args.duration:.0f} s, {args.agents} agents, SIGKILL + restart at half time")
    print(f"requests: before {soak.requests['before']}, after {soak.requests['after']}; "
          f"back {back_s:.1f} s after the kill (a search and a put answered 2xx)")
    _print_restart(restart)
    print(f"{'route':<10}{'phase':<8}{'ok':>7}{'p50 ms':>10}{'p95 ms':>10}{'p99 ms':>10}")
    for key, row in out["latency_ms"].items():
        route, phase = key.split()
        print(f"{route:<10}{phase:<8}{row['n']:>7}{row['p50']:>10.0f}{row['p95']:>10.0f}{row['p99']:>10.0f}")
    print("errors: " + (", ".join(f"{k}: {n}" for k, n in out["errors"].items()) or "none"))
    print(f"5xx: {fivexx}; acknowledged puts {check['acknowledged_puts']}, lost {check['lost']}, "
          f"not whole {check['not_whole']}")
    write_report(out, args.json)
    return 0 if fivexx == 0 and not check["lost"] and not check["not_whole"] else 1


def noisy_neighbour(args: argparse.Namespace) -> int:
    """The noisy-neighbour phase (``bench/noisy.py``) against a server of its own."""
    import noisy

    with tempfile.TemporaryDirectory(prefix="fm-noisy-") as tmp:
        home, port = Path(tmp) / "home", free_port()
        home.mkdir()
        server, _ = start_server(home, port)
        try:
            out = noisy.run(f"http://127.0.0.1:{port}", args.threads, args.duration, args.agents, args.noisy_mb,
                            args.seed, args.rate, args.spammers)
        finally:
            server.send_signal(signal.SIGTERM)
            server.wait(60)
    load = f"{args.rate:g} requests/s (open loop) on {args.threads} threads" if args.rate else f"{args.threads} threads"
    print(f"noisy neighbour: {load} over {args.agents} agents, {args.duration:.0f} s,"
          f" {args.noisy_mb:g} MB puts by one agent (load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs)")
    ok = noisy.report(out)
    write_report(out, args.json)
    return 0 if ok else 1


def _print_restart(restart: dict) -> None:
    """Seconds after the kill: the process started, each server phase (``/health/ready``),
    listening, the first 2xx of each route, the prober's search, ready."""
    rows = [("new process started", restart["process_started"])]
    rows += [(f"server: {name} done", at) for name, at in restart["server_phases"].items() if at is not None]
    rows += [("listening (/health 200)", restart["listening"]), ("first search 2xx (prober)", restart["back_search"])]
    rows += [(f"first {route} 2xx (load)", at) for route, at in restart["first_2xx_by_route"].items()]
    rows.append(("ready (/health/ready 200)", restart["ready"]))
    print(f"restart, seconds after the kill (load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs):")
    for name, at in sorted(rows, key=lambda r: r[1]):
        print(f"  {name:<30}{at:>6.1f}")
    if restart.get("cpu_at_back_search") is not None:
        print(f"  server CPU seconds used: {restart['cpu_at_back_search']:.1f} by the prober's first search 2xx, "
              f"{restart['cpu_at_ready']:.1f} by ready")


if __name__ == "__main__":
    raise SystemExit(main())
