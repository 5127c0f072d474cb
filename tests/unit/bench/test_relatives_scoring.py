"""The scoring of ``bench/relatives.py``: what a stored text gained over the message as it was put."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "bench"))

from relatives import gained, reading  # noqa: E402


def test_a_name_written_beside_the_relation_is_gained_and_read():
    said = "my daughter's teacher wants a meeting"
    assert gained(said, "my daughter Aoife's teacher wants a meeting") == {"Aoife"}
    assert gained(said, said) == set()
    same = {"kind": "same", "name": "Aoife Byrne", "messages": [said]}
    trap = {"kind": "trap", "name": "Aoife", "messages": [said]}
    assert reading(same, "my daughter Aoife's teacher wants a meeting") == "right"
    assert reading(same, "my daughter Niamh's teacher wants a meeting") == "wrong"
    assert reading(trap, "my daughter Aoife's teacher wants a meeting") == "wrong"
    assert reading(trap, said) == reading(same, said) == "left alone"
