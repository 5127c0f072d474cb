"""Relatives named by the relation alone (``ingest.kin``): how often the name written beside "my
daughter", "Dad's", "our son" is the right one, on histories the rules were not written against.

    python bench/relatives.py [--home DIR]

Each line of ``bench/data/relatives/histories*.jsonl`` (one table per file) is one user's history of single-message puts
(one agent each, ``user_id`` "u1", months apart): earlier messages name a relative beside the
relation, the last one mentions that kind of relative by the relation alone. ``kind`` "same": the
last mention is ``name``; "trap": it is someone else (another child, a new spouse, someone's quoted
words, the user themself …). The last message's stored units are read: a capitalised word they
hold more often than the message as it was put was written by coreference. Right: a "same" history
that gained ``name``; wrong: a history that gained any other capitalised word, or a trap that gained
one at all; left alone: nothing gained. Precision = right / (right + wrong); recall = right / the
"same" histories.
"""

from __future__ import annotations

import argparse
import json
import re
import tempfile
from collections import Counter
from pathlib import Path

DATA = Path(__file__).parent / "data" / "relatives"
_CAPITALISED = re.compile(r"\b[^\W\d_][\w'’-]*")


def gained(said: str, stored: str) -> set[str]:
    """The capitalised words ``stored`` holds more often than ``said`` (possessives as their name)."""
    def words(text: str) -> Counter:
        return Counter(w.removesuffix("'s").removesuffix("’s") for w in _CAPITALISED.findall(text) if w[0].isupper())
    return set(words(stored) - words(said))


def reading(case: dict, stored: str) -> str:
    added = gained(case["messages"][-1], stored)
    if not added:
        return "left alone"
    return "right" if case["kind"] == "same" and case["name"].split()[0] in added else "wrong"


def run(memory, cases: list[dict]) -> tuple[Counter, list[str]]:
    """Each history into an agent of its own; the readings counted by (kind, reading), and the wrong ones."""
    counts: Counter = Counter()
    wrong = []
    for case in cases:
        *earlier, last = case["messages"]
        for i, text in enumerate(earlier):
            memory.put(case["id"], text, user_id="u1", event_date=f"2023-{1 + i:02d}-10T10:00:00Z")
        stored = " ".join(memory.put(case["id"], last, user_id="u1", event_date="2024-06-01T10:00:00Z").texts)
        result = reading(case, stored)
        counts[case["kind"], result] += 1
        if result == "wrong":
            wrong.append(f"{case['id']} ({case['kind']}, {case['name']}): {stored}")
    return counts, wrong


def table(name: str, counts: Counter, wrong: list[str]) -> str:
    right = counts["same", "right"]
    written = right + counts["same", "wrong"] + counts["trap", "wrong"]
    same = sum(n for (kind, _), n in counts.items() if kind == "same")
    lines = [f"{name}\n\n| histories | right | wrong | left alone |", "|---|---|---|---|"]
    for kind in ("same", "trap"):
        lines.append(f"| {kind} ({sum(n for (k, _), n in counts.items() if k == kind)}) | {counts[kind, 'right']} | "
                     f"{counts[kind, 'wrong']} | {counts[kind, 'left alone']} |")
    lines.append(f"\nprecision {right / written if written else float('nan'):.3f}, recall {right / same:.3f}")
    return "\n".join(lines + [f"wrong: {line}" for line in wrong])


def main(argv: list[str] | None = None) -> int:
    from fleet_memory import Config, FleetMemory

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--home", type=Path, default=None, help="data directory (default: a fresh temp dir)")
    args = parser.parse_args(argv)
    with FleetMemory(Config(home=args.home or Path(tempfile.mkdtemp(prefix="fm-relatives-")))) as memory:
        for path in sorted(DATA.glob("histories*.jsonl")):
            cases = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
            print(table(path.name, *run(memory, cases)) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
