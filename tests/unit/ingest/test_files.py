"""Files → put items (ingest.files): structured files by their parser, conversation times."""

from __future__ import annotations

import json
from datetime import datetime, timezone

import pytest

from fleet_memory.errors import InvalidInputError
from fleet_memory.ingest.files import read_items

README = """\
# Tool

[![CI](https://img.shields.io/badge/ci-passing-green.svg)](https://ci.example.com)

Tool converts [CSV files](https://example.com/csv) to Parquet.

## Install

Run this:

```sh
pip install tool
```

Tool needs Python 3.11.
"""


def test_markdown_file_items_are_prose_per_section_with_heading_context(tmp_path):
    path = tmp_path / "README.md"
    path.write_text(README)
    items = read_items(path)
    assert [(i["content"], i["context"]) for i in items] == [
        ("Tool converts CSV files to Parquet.", "README.md > Tool"),
        ("Tool needs Python 3.11.", "README.md > Tool > Install"),
    ]
    assert items[0]["metadata"] == {"links": [{"text": "CSV files", "url": "https://example.com/csv"}]}
    assert all(i["format"] == "text" for i in items)


def test_rst_file_by_extension(tmp_path):
    path = tmp_path / "guide.rst"
    path.write_text("Guide\n=====\n\nThe guide explains the setup.\n\n.. code-block:: sh\n\n    make\n")
    assert [(i["content"], i["context"]) for i in read_items(path)] == [
        ("The guide explains the setup.", "guide.rst > Guide")]


def test_plain_text_file_keeps_its_paragraphs(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("Alice moved to Lisbon.\n\nShe teaches physics.\n")
    assert [i["content"] for i in read_items(path)] == ["Alice moved to Lisbon.\n\nShe teaches physics."]


@pytest.mark.parametrize("key", ["timestamp", "time", "date", "event_date"])
def test_turn_time_under_any_of_its_names(tmp_path, key):
    path = tmp_path / "chat.json"
    path.write_text(json.dumps([{"role": "user", "content": "I moved to Lisbon.", key: "2024-03-01T10:00:00Z"}]))
    assert read_items(path)[0]["timestamp"] == "2024-03-01T10:00:00Z"


def test_turn_time_in_epoch_seconds(tmp_path):
    path = tmp_path / "chat.jsonl"
    path.write_text(json.dumps({"speaker": "Ann", "text": "I moved.", "time": 1709287200}) + "\n")
    assert read_items(path)[0]["timestamp"] == datetime(2024, 3, 1, 10, 0, tzinfo=timezone.utc)


def test_turn_time_given_twice_is_refused(tmp_path):
    path = tmp_path / "chat.json"
    path.write_text(json.dumps([{"text": "Hi there.", "time": "2024-03-01", "timestamp": "2024-03-02"}]))
    with pytest.raises(InvalidInputError, match=r"chat.json\[0\].time.*given twice"):
        read_items(path)
