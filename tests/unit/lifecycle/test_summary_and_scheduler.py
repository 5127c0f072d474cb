import threading

import numpy as np

from fleet_memory.lifecycle.consolidation import cluster_embeddings
from fleet_memory.lifecycle.scheduler import LifecycleScheduler, standard_jobs
from fleet_memory.lifecycle.summary import central_index, extractive_summary
from fleet_memory.providers.embedder import HashingEmbedder


def test_clusters_follow_topics():
    texts = [
        "The nightly deploy to production failed with a database timeout error.",
        "The deploy to production failed again with a database timeout error.",
        "Another deploy to production failed with the same database timeout error.",
        "Alice baked a chocolate cake for the office birthday party.",
        "Alice baked a lemon cake for the office birthday party.",
        "Alice baked a carrot cake for the office birthday party.",
        "The cat sleeps on the windowsill.",
    ]
    groups = cluster_embeddings(HashingEmbedder().embed(texts), 0.4)
    assert sorted(sorted(g) for g in groups if len(g) >= 3) == [[0, 1, 2], [3, 4, 5]]
    assert [6] in groups


def test_central_episode_is_the_medoid():
    vectors = np.array([[1.0, 0.0], [0.8, 0.6], [0.6, 0.8], [0.0, 1.0]])
    assert central_index(vectors) in (1, 2)
    assert central_index(np.array([[1.0, 0.0], [1.0, 0.1], [0.0, 1.0]])) == 1


def test_extractive_summary_is_one_readable_sentence():
    texts = ["Alice deployed the app on Monday", "Alice deployed the app on Tuesday.", "Bob fixed a bug."]
    vectors = np.array([[1.0, 0.0], [0.9, 0.44], [0.6, 0.8]])
    summary = extractive_summary(texts, vectors, ["Alice", "Acme", "Bob"])
    assert summary == "Across 3 related episodes involving Alice, Acme and Bob: Alice deployed the app on Tuesday."
    assert extractive_summary(texts[:2], vectors[:2]) .startswith("Across 2 related episodes: Alice deployed")
    assert extractive_summary(["Alice\ndeployed  it"], vectors[:1]).endswith(": Alice deployed it.")


def test_scheduler_runs_rounds_until_stopped_and_survives_a_failing_job():
    calls: list[str] = []
    ran_twice = threading.Event()

    def maintain(agent):
        calls.append(f"maintain:{agent}")

    def consolidate(agent):
        raise RuntimeError("boom")

    def on_round(results):
        if len(calls) >= 2:
            ran_twice.set()

    jobs = standard_jobs(maintain, consolidate, lambda: ["a1"], None)
    scheduler = LifecycleScheduler(jobs, interval_s=0.01, on_round=on_round)
    with scheduler:
        assert ran_twice.wait(30)
    assert not scheduler.running
    assert calls[:2] == ["maintain:None", "maintain:None"]
    assert isinstance(scheduler.last_errors["consolidate"], RuntimeError)
    rounds = scheduler.rounds
    results = scheduler.run_once()
    assert scheduler.rounds == rounds + 1 and results["maintain"] is None


def test_standard_jobs_for_named_agents():
    seen = []
    jobs = dict(standard_jobs(lambda a: seen.append(("m", a)), lambda a: seen.append(("c", a)), lambda: ["x"],
                              ["a1", "a2"]))
    jobs["maintain"]()
    jobs["consolidate"]()
    assert seen == [("m", "a1"), ("m", "a2"), ("c", "a1"), ("c", "a2")]
    assert [name for name, _ in standard_jobs(print, print, list, None, with_consolidation=False)] == ["maintain"]
    whole = standard_jobs(print, print, list, None, index_agents=list)
    assert [name for name, _ in whole] == ["maintain", "consolidate", "index_agents"]
    named = standard_jobs(print, print, list, ["a1"], index_agents=list)
    assert [name for name, _ in named] == ["maintain", "consolidate"]  # one agent's round builds no index
