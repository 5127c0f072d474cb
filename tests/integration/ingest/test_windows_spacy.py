"""A long put resolved window by window (parse and embedding overlapped) stores the same units,
texts and entities as the same put in one window, with the real spaCy model."""

from __future__ import annotations

from datetime import timedelta

TURNS = [
    ("Ann", "My sister Carol moved to Denver last spring. She works at Boeing as an engineer."),
    ("Ben", "That's a big move! Does she like it there?"),
    ("Ann", "She loves it. Carol goes skiing every weekend in Vail."),
    ("Ben", "I started a new job at Acme last week. It is a robotics company."),
    ("Ann", "Congrats! What do you build there?"),
    ("Ben", "We build warehouse robots. My manager Priya taught me a lot already."),
    ("Ann", "Priya sounds great. Is she from Denver too?"),
    ("Ben", "She grew up in Chennai and moved here for her PhD."),
    ("Ann", "I adopted a puppy named Rex. He chews every shoe in the house."),
    ("Ben", "Haha, Rex sounds like trouble. I have a cat named Miso."),
    ("Ann", "Carol wants to visit us in June. She will bring her kids."),
    ("Ben", "I painted the kitchen blue on Sunday. It took me all day."),
]


def _put(memory, agent, window_facts, clock):
    memory._ingest.window_facts = window_facts
    memory._ingest.min_window_facts = window_facts
    start = clock.now() - timedelta(days=1)
    items = [{"speaker": s, "text": t, "timestamp": start + timedelta(minutes=i)} for i, (s, t) in enumerate(TURNS)]
    results = memory.put_many(items, agent_id=agent)
    entities = sorted((e.name, e.label, e.mention_count) for e in memory.list_entities(agent))
    return [r.texts for r in results], entities


def test_windows_store_what_one_window_stores(memory, clock):
    windowed = _put(memory, "windows", 3, clock)
    single = _put(memory, "single", 1_000, clock)
    assert windowed == single
    texts = [t for turn in windowed[0] for t in turn]
    assert "Carol goes skiing every weekend in Vail." in texts
    assert any(t.startswith("Carol will bring") for t in texts)  # across a window boundary


DOCUMENT = ("Carol moved to Denver last spring. Especially in March. Mostly for the mountains. She works at "
            "Boeing as an engineer. Wow. Carol goes skiing every weekend in Vail. In winter. On Saturdays. With "
            "friends. Priya grew up in Chennai. She moved here for her PhD. Rex chews every shoe in the house. "
            "Every single one. Ben painted the kitchen blue on Sunday. It took him all day. Then dinner. Late.")


def test_one_long_episode_cut_into_windows_stores_what_one_window_stores(memory):
    """A document cut every few facts (``ingest.windows.EPISODE_CUT_FACTS``, here 2 and 3):
    fragments still join the fact before them across a cut, pronouns still find their names."""

    def put(agent, cut):
        memory._ingest.episode_cut = cut
        texts = memory.put(agent, DOCUMENT).texts
        return texts, sorted((e.name, e.label, e.mention_count) for e in memory.list_entities(agent))

    whole = put("whole", 10_000)
    assert put("cut-2", 2) == put("cut-3", 3) == whole
    texts = whole[0]
    assert "Carol goes skiing every weekend in Vail. In winter. On Saturdays. With friends." in texts
    assert any(t.startswith("Priya moved here") for t in texts)
