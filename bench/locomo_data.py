"""Reading the LoCoMo conversation files (../shared/bench/locomo_dev.jsonl format) for the benchmarks."""

from __future__ import annotations

import json
from pathlib import Path

__all__ = ["load", "turn_text", "turn_items"]


def turn_text(turn: dict) -> str:
    """The turn's text, with the caption of a shared photo when there is one."""
    text = turn["text"]
    if turn.get("blip_caption"):
        text = f"{text} [photo: {turn['blip_caption']}]"
    return text


def load(path: Path) -> list[dict]:
    with path.open() as fh:
        return [json.loads(line) for line in fh if line.strip()]


def turn_items(conv: dict) -> list[dict]:
    """``put_many`` items for every turn: speaker, text, the session's date, turn id, session id."""
    return [
        {"speaker": t["speaker"], "text": turn_text(t), "timestamp": s["date_time"], "turn_id": t["dia_id"],
         "session_id": s["session_id"]}
        for s in conv["sessions"] for t in s["turns"]
    ]
