"""The noisy-neighbour phase of ``bench/soak.py``: one agent floods a real ``fleet-memory serve``
with the largest puts the input limits allow and hostile idempotent retries, while other agents
search and put. It measures what the flood costs everyone else.

    python bench/soak.py --noisy-neighbour [--threads 6] [--duration 180] [--agents 20] [--noisy-mb 2.0]
                         [--rate 0]

Three phases of a third of ``--duration`` each: ``quiet`` (only the other agents), ``flood`` and
``after``. During the flood one thread sends puts of ``--noisy-mb`` MB of short capitalised
fragments (every fragment a candidate entity, most without a verb: the costliest text per byte
found so far) to the agent ``noisy``, each with an ``Idempotency-Key``, on a 3 s client timeout
that it retries through (a timed-out client retrying, as clients do); two more threads re-send the
running put with its key back to back without waiting. The other agents' threads search (70 %) and put short
messages (30 %) throughout: with ``--rate 0`` (the default) as closed loops, each thread sending
its next request when the last is answered — a load that keeps the server's cores busy on its own;
with ``--rate R``, R requests per second over all threads arriving at random (Poisson) times
whatever the answers, each timed from when it was due — a server with headroom, as it is sized in
production.

Printed (and written with ``--json``): per phase, the other agents' p50 / p95 / p99 per route,
errors and 5xx; the flood's puts (seconds, MB, seconds per MB) and retries answered; the check:
the other agents' search p99 during the flood ≤ 3× the quiet p99, no 5xx, and every flood put
done within 60 s per MB.
"""

from __future__ import annotations

import json
import random
import string
import threading
import time
import uuid
from collections import Counter, defaultdict
from concurrent.futures import ThreadPoolExecutor

import httpx

QUIET_ROUTES = (("search", 70), ("put", 30))
RETRY_SPAMMERS = 2


def fragments(n_bytes: int, seed: int) -> str:
    """``n_bytes`` of short capitalised fragments ("Hzmvm Ugdyk.")."""
    rng = random.Random(seed)
    out, size = [], 0
    while size < n_bytes:
        words = [rng.choice(string.ascii_uppercase) + "".join(rng.choices(string.ascii_lowercase, k=rng.randint(3, 8)))
                 for _ in range(rng.randint(1, 3))]
        out.append(" ".join(words) + ".")
        size += len(out[-1]) + 1
    return " ".join(out)[:n_bytes]  # within the input limit when n_bytes is the limit


class Neighbours:
    """The other agents' load and the flood, phase by phase."""

    def __init__(self, base: str, agents: int, noisy_mb: float) -> None:
        self.base, self.agents, self.noisy_mb = base, [f"quiet-{i:03d}" for i in range(agents)], noisy_mb
        self.phase = "quiet"
        self.lock = threading.Lock()
        self.latency: dict[tuple[str, str], list[float]] = defaultdict(list)
        self.errors: Counter[tuple[str, str, str]] = Counter()
        self.flood_puts: list[dict] = []
        self.retries: Counter[str] = Counter()
        self.running: tuple[str, str] | None = None  # (key, text) of the flood's put in flight

    def seed(self, client: httpx.Client) -> None:
        for agent in self.agents:
            client.post(f"{self.base}/v1/agents/{agent}/memories",
                        json={"content": f"{agent} keeps the spare keys in the blue drawer. Dana fixed the boiler."})

    def quiet_worker(self, stop: threading.Event, seed: int) -> None:
        """A closed loop: the next request when the last one is answered."""
        rng = random.Random(seed)
        with httpx.Client(timeout=120) as client:
            while not stop.is_set():
                self._one(client, rng, time.perf_counter())

    def arrivals(self, stop: threading.Event, seed: int, rate: float, threads: int) -> None:
        """An open loop: requests due at Poisson times, ``rate`` per second, sent by ``threads``
        threads whatever the answers; each is timed from when it was due, so a request that waited
        for a free thread counts its wait."""
        rng = random.Random(seed)
        due = time.perf_counter()
        limits = httpx.Limits(max_connections=threads, max_keepalive_connections=threads)
        with httpx.Client(timeout=120, limits=limits) as client, ThreadPoolExecutor(threads) as pool:
            while not stop.is_set():
                due += rng.expovariate(rate)
                time.sleep(max(0.0, due - time.perf_counter()))
                pool.submit(self._one, client, random.Random(rng.random()), due)

    def _one(self, client: httpx.Client, rng: random.Random, due: float) -> None:
        """One search or short put by one of the other agents, timed from ``due``."""
        names, weights = zip(*QUIET_ROUTES)
        route, agent = rng.choices(names, weights)[0], rng.choice(self.agents)
        a = f"{self.base}/v1/agents/{agent}"
        phase = self.phase
        try:
            if route == "search":
                answer = client.post(f"{a}/search", json={"query": "Where are the spare keys?", "top_k": 5})
            else:
                answer = client.post(f"{a}/memories", json={"content": f"Dana paid the plumber {rng.random()}."})
            kind = None if answer.status_code < 400 else f"HTTP {answer.status_code}"
        except httpx.HTTPError as exc:
            kind = type(exc).__name__
        self._record(phase, route, kind, time.perf_counter() - due)

    def _record(self, phase: str, route: str, kind: str | None, elapsed: float) -> None:
        with self.lock:
            if kind:
                self.errors[(phase, route, kind)] += 1
            else:
                self.latency[(route, phase)].append(elapsed)

    def flood(self, stop: threading.Event) -> None:
        url = f"{self.base}/v1/agents/noisy/memories"
        n = 0
        with httpx.Client(timeout=3.0) as client:
            while not stop.is_set():
                n += 1
                text, key = fragments(int(self.noisy_mb * 1_000_000), seed=n), f"flood-{uuid.uuid4()}"
                self.running, started = (key, text), time.perf_counter()
                status = self._put_through_retries(client, url, text, key, stop)
                self.flood_puts.append({"mb": len(text) / 1e6, "seconds": time.perf_counter() - started,
                                        "status": status})
                self.running = None

    def _put_through_retries(self, client: httpx.Client, url: str, text: str, key: str,
                             stop: threading.Event) -> int | str:
        while True:
            try:
                answer = client.post(url, json={"content": text}, headers={"Idempotency-Key": key})
            except httpx.TimeoutException:
                self.retries["timeout, retried"] += 1
                continue
            if answer.status_code == 409:
                self.retries["409 in progress"] += 1
                time.sleep(float(answer.headers.get("retry-after", "1")))
                continue
            return answer.status_code if not stop.is_set() or answer.status_code < 400 else "stopped"

    def retry_spammer(self, stop: threading.Event) -> None:
        """Re-sends the running flood put with its key, back to back, ignoring ``Retry-After``. The
        body is encoded once per put: a hostile client runs elsewhere, and its own encoding is not
        the server's cost (encoding 2 MB of JSON on every send took most of a core here)."""
        url = f"{self.base}/v1/agents/noisy/memories"
        encoded: tuple[str, bytes] | None = None
        with httpx.Client(timeout=30) as client:
            while not stop.is_set():
                running = self.running
                if running is None:
                    time.sleep(0.05)
                    continue
                if encoded is None or encoded[0] != running[0]:
                    encoded = running[0], json.dumps({"content": running[1]}).encode()
                try:
                    answer = client.post(url, content=encoded[1], headers={"Idempotency-Key": running[0],
                                                                           "Content-Type": "application/json"})
                    self.retries[f"spam HTTP {answer.status_code}"] += 1
                except httpx.HTTPError as exc:
                    self.retries[f"spam {type(exc).__name__}"] += 1


def run(base: str, threads: int, duration: float, agents: int, noisy_mb: float, seed: int,
        rate: float = 0.0, spammers: int = RETRY_SPAMMERS) -> dict:
    """The three phases against the server at ``base``; the figures ``report`` prints. ``rate``:
    the other agents' requests per second in an open loop (0: ``threads`` closed loops)."""
    load = Neighbours(base, agents, noisy_mb)
    with httpx.Client(timeout=300) as client:
        load.seed(client)
    cpu = time.process_time()
    stop, flood_stop = threading.Event(), threading.Event()
    if rate > 0:
        quiet = [threading.Thread(target=load.arrivals, args=(stop, seed, rate, threads))]
    else:
        quiet = [threading.Thread(target=load.quiet_worker, args=(stop, seed + i)) for i in range(threads)]
    for t in quiet:
        t.start()
    time.sleep(duration / 3)
    load.phase = "flood"
    flood = [threading.Thread(target=load.flood, args=(flood_stop,))]
    flood += [threading.Thread(target=load.retry_spammer, args=(flood_stop,)) for _ in range(spammers)]
    for t in flood:
        t.start()
    time.sleep(duration / 3)
    flood_stop.set()
    load.phase = "after"  # the put in flight finishes in this phase: its cost shows here too
    for t in flood:
        t.join()
    time.sleep(duration / 3)
    stop.set()
    for t in quiet:
        t.join()
    return {**summarise(load), "client_cpu_s": time.process_time() - cpu, "duration_s": duration}


def summarise(load: Neighbours) -> dict:
    from soak import pct

    latency = {f"{r} {p}": {"n": len(v), "p50": pct(v, 50), "p95": pct(v, 95), "p99": pct(v, 99)}
               for (r, p), v in sorted(load.latency.items())}
    fivexx = sum(n for (_, _, kind), n in load.errors.items() if kind.startswith("HTTP 5"))
    quiet_p99 = latency.get("search quiet", {}).get("p99", float("nan"))
    flood_p99 = latency.get("search flood", {}).get("p99", float("nan"))
    done = [p for p in load.flood_puts if p["status"] == 201]
    worst = max((p["seconds"] / p["mb"] for p in done), default=float("nan"))
    return {"latency_ms": latency, "errors": {" ".join(k): n for k, n in sorted(load.errors.items())},
            "http_5xx": fivexx, "search_p99_ratio": flood_p99 / quiet_p99, "flood_puts": load.flood_puts,
            "worst_put_s_per_mb": worst, "retries": dict(load.retries)}


def report(out: dict) -> bool:
    """Print the tables; True when the check holds."""
    print(f"{'route':<8}{'phase':<8}{'ok':>7}{'p50 ms':>10}{'p95 ms':>10}{'p99 ms':>10}")
    for key, row in out["latency_ms"].items():
        route, phase = key.split()
        print(f"{route:<8}{phase:<8}{row['n']:>7}{row['p50']:>10.0f}{row['p95']:>10.0f}{row['p99']:>10.0f}")
    for put in out["flood_puts"]:
        print(f"flood put: {put['mb']:.2f} MB, {put['seconds']:.1f} s ({put['seconds'] / put['mb']:.1f} s/MB),"
              f" answered {put['status']}")
    print("flood retries: " + (", ".join(f"{k}: {n}" for k, n in sorted(out["retries"].items())) or "none"))
    print("other agents' errors: " + (", ".join(f"{k}: {n}" for k, n in out["errors"].items()) or "none"))
    if "client_cpu_s" in out:  # the load generator shares the machine: what it took of it
        print(f"this load generator's own CPU: {out['client_cpu_s']:.0f} s over {out['duration_s']:.0f} s")
    ok = out["http_5xx"] == 0 and out["search_p99_ratio"] <= 3 and out["worst_put_s_per_mb"] <= 60
    print(f"search p99 during the flood / quiet: {out['search_p99_ratio']:.2f} (bound 3); 5xx: {out['http_5xx']};"
          f" worst put {out['worst_put_s_per_mb']:.1f} s/MB (bound 60) -> {'ok' if ok else 'FAILED'}")
    return ok
