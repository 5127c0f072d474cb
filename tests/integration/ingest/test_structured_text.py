"""Structured text through the whole pipeline: Markdown and reStructuredText puts store prose
only, with the heading path as each unit's context and link URLs in its metadata."""

from __future__ import annotations

from pathlib import Path

import pytest

from fleet_memory.errors import InvalidInputError

README = """\
# Quill

[![Build Status](https://img.shields.io/github/actions/workflow/status/quill/quill/ci.yml)](https://github.com/quill/quill/actions)
[![Coverage](https://img.shields.io/codecov/c/github/quill/quill.svg)](https://codecov.io/gh/quill/quill)
![Quill logo](https://raw.githubusercontent.com/quill/quill/main/logo.png)

Quill was written by Margaret Hamilton at Lunar Labs in Boston.
See the [user guide](https://quill.example.org/guide) for details.

<div align="center"><img src="demo.gif" alt="demo"></div>

## Installation

Quill needs Python 3.11. Here's an example:

```python
from quill import Parser
parser = Parser(strict=True)
raise StopIteration("Kubernetes")
```
"""

LICENCE = """\
SNAKEWARE LICENSE AGREEMENT
---------------------------

1. This License Agreement shall be governed by the law of the State of California.

HOLLOW LICENSE AGREEMENT
------------------------

1. This License Agreement shall be governed by the law of the State of Virginia.
"""

_NOISE = ("shields", "Build Status", "Coverage", "logo", "demo", "Parser", "StopIteration", "Kubernetes", "strict",
          "example:", "http")


@pytest.mark.models
def test_readme_with_badges_code_and_links_gives_no_unit_or_entity_from_them(real_memory):
    result = real_memory.put("docs", README, source="README.md")
    texts = result.texts
    assert any("Margaret Hamilton" in t for t in texts)
    assert any("user guide" in t for t in texts)
    assert any("Python 3.11" in t for t in texts)
    for noise in _NOISE:
        assert not any(noise in t for t in texts), (noise, texts)
    names = {e.name for e in real_memory.list_entities("docs")}
    assert "Margaret Hamilton" in names
    for noise in ("Build Status", "Coverage", "Quill logo", "Parser", "StopIteration", "Kubernetes"):
        assert not any(noise.lower() in n.lower() for n in names), (noise, names)
    units = {u.text: u for u in real_memory.list_units("docs").units}
    guide = next(u for t, u in units.items() if "user guide" in t)
    assert guide.metadata["links"] == [{"text": "user guide", "url": "https://quill.example.org/guide"}]
    python = next(u for t, u in units.items() if "Python 3.11" in t)
    assert python.context == "Quill > Installation"


@pytest.mark.models
def test_licence_clauses_keep_their_section(real_memory):
    real_memory.put("lic", LICENCE, context="LICENSE")
    by_text = {u.text: u.context for u in real_memory.list_units("lic").units}
    california = next(c for t, c in by_text.items() if "California" in t)
    virginia = next(c for t, c in by_text.items() if "Virginia" in t)
    assert california == "LICENSE > SNAKEWARE LICENSE AGREEMENT"
    assert virginia == "LICENSE > HOLLOW LICENSE AGREEMENT"


def test_code_is_one_unit_of_its_own_only_when_asked(memory):
    kept = memory.put("a", README, keep_code=True)
    dropped = memory.put("b", README)
    code = [u for u in memory.list_units("a").units if u.metadata.get("kind") == "code"]
    assert len(code) == 1 and code[0].text.startswith("from quill import Parser")
    assert code[0].context == "Quill > Installation"
    assert len(kept.units) == len(dropped.units) + 1
    assert not any(u.metadata.get("kind") for u in memory.list_units("b").units)


def test_format_text_stores_markup_as_written(memory):
    result = memory.put("a", "# Plan\n\nAlice moved to [Lisbon](https://lisbon.pt) last year.", format="text")
    assert any("[Lisbon](https://lisbon.pt)" in t for t in result.texts)
    result = memory.put("b", "# Plan\n\nAlice moved to [Lisbon](https://lisbon.pt) last year.")
    assert result.texts == ["Alice moved to Lisbon last year."]


def test_unknown_format_and_bad_keep_code_are_refused(memory):
    with pytest.raises(InvalidInputError, match="format"):
        memory.put("a", "Alice moved.", format="html")
    with pytest.raises(InvalidInputError, match=r"items\[0\].keep_code"):
        memory.put_many([{"content": "Alice moved.", "keep_code": "yes"}], agent_id="a")
    assert memory.stats("a").units == 0


def test_put_many_items_take_the_format(memory):
    results = memory.put_many([{"content": "Title\n=====\n\nBob plays chess.", "format": "rst"},
                               {"content": "Title\n=====\n\nBob plays go.", "format": "text"}], agent_id="a")
    assert results[0].texts == ["Bob plays chess."]
    assert "=====" in " ".join(results[1].texts)
