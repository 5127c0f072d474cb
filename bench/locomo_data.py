"""Reading the LoCoMo conversation files (``locomo_dev.jsonl``: one conversation per line) for the benchmarks."""

from __future__ import annotations

import json
from pathlib import Path

__all__ = ["FEEDS", "load", "turn_text", "turn_items", "batches"]


def turn_text(turn: dict) -> str:
    """The turn's text, with the caption of a shared photo when there is one."""
    text = turn["text"]
    if turn.get("blip_caption"):
        text = f"{text} [photo: {turn['blip_caption']}]"
    return text


def load(path: Path) -> list[dict]:
    with path.open() as fh:
        return [json.loads(line) for line in fh if line.strip()]


FEEDS = ("conversation", "session", "lines")


def turn_items(conv: dict) -> list[dict]:
    """``put_many`` items for every turn: speaker, text, the session's date, turn id, session id."""
    return [
        {"speaker": t["speaker"], "text": turn_text(t), "timestamp": s["date_time"], "turn_id": t["dia_id"],
         "session_id": s["session_id"]}
        for s in conv["sessions"] for t in s["turns"]
    ]


def batches(conv: dict, feed: str = "conversation") -> list[list[dict]]:
    """The ``put_many`` calls that store a conversation, fed one of three ways: ``conversation`` — one
    call for everything, each turn with its ``speaker``; ``session`` — one call per session, the same
    items (the README's way); ``lines`` — one call per session, each turn as plain content
    ``"Speaker: text"`` with no speaker field (a chat log as people write one). The turn id rides
    along in every way, only to score the results."""
    items = turn_items(conv)
    if feed == "conversation":
        return [items]
    if feed == "lines":
        items = [{"content": f"{i['speaker']}: {i['text']}", "timestamp": i["timestamp"], "turn_id": i["turn_id"],
                  "session_id": i["session_id"]} for i in items]
    sessions: dict[str, list[dict]] = {}
    for item in items:
        sessions.setdefault(item["session_id"], []).append(item)
    return list(sessions.values())
