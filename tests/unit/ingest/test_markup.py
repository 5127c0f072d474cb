"""Structured text (ingest.markup): Markdown and reStructuredText read by their parsers into prose
blocks with heading paths; code, badges, images, raw HTML and lead-ins are not prose."""

from __future__ import annotations

import pytest

from fleet_memory.ingest.markup import blocks_of, detect_format

README_MD = """\
# Rich

[![PyPI](https://img.shields.io/pypi/v/rich.svg)](https://pypi.org/project/rich/) ![logo](imgs/logo.svg)

Rich is a Python library for [rich text](https://rich.readthedocs.io/) in the terminal.

<p align="center"><img src="x.png"></p>

Installation
------------

Rich works with Python 3.8 and later. Here's an example:

```python
from rich import print
print("Hello, [bold magenta]World[/bold magenta]!")
```

    indented_code = True

- Tables render with `Table` objects.
- Progress bars are **animated**.

| a | b |
|---|---|
| 1 | 2 |
"""

README_RST = """\
Project
=======

.. image:: https://img.shields.io/badge/build-passing-green.svg
   :target: https://ci.example.com

|badge| Click is a package for `command line interfaces <https://click.palletsprojects.com/>`_ in Python.

.. |badge| image:: https://img.shields.io/badge/x.svg

Usage
-----

Here's an example::

    import click

.. code-block:: python

    click.echo("hi")

.. note:: The :class:`Context` object carries state.

.. raw:: html

    <b>raw</b>
"""


def test_markdown_prose_keeps_link_text_and_heading_path():
    blocks = blocks_of(README_MD, "markdown")
    assert [(b.text, b.heading_path) for b in blocks] == [
        ("Rich is a Python library for rich text in the terminal.", "Rich"),
        ("Rich works with Python 3.8 and later.", "Rich > Installation"),
        ("Tables render with Table objects.", "Rich > Installation"),
        ("Progress bars are animated.", "Rich > Installation"),
    ]
    assert blocks[0].links == (("rich text", "https://rich.readthedocs.io/"),)
    assert blocks[2].literals == ("Table",)


def test_markdown_badges_images_html_code_and_tables_leave_nothing():
    text = " ".join(b.text for b in blocks_of(README_MD, "markdown"))
    for noise in ("PyPI", "shields", "logo", "img", "print", "Hello", "indented_code", "Here's", "| a"):
        assert noise not in text


def test_code_is_kept_as_its_own_block_only_when_asked():
    blocks = blocks_of(README_MD, "markdown", keep_code=True)
    code = [b for b in blocks if b.kind == "code"]
    assert [b.text.splitlines()[0] for b in code] == ["from rich import print", "indented_code = True"]
    assert {b.heading_path for b in code} == {"Rich > Installation"}
    assert "Here's an example" not in " ".join(b.text for b in blocks)


def test_rst_prose_without_directives_badges_or_code():
    blocks = blocks_of(README_RST, "rst")
    assert [(b.text, b.heading_path) for b in blocks] == [
        ("Click is a package for command line interfaces in Python.", "Project"),
        ("The Context object carries state.", "Project > Usage"),
    ]
    assert blocks[0].links == (("command line interfaces", "https://click.palletsprojects.com/"),)
    assert blocks[1].literals == ("Context",)


def test_rst_code_kept_when_asked():
    code = [b for b in blocks_of(README_RST, "rst", keep_code=True) if b.kind == "code"]
    assert [b.text for b in code] == ["import click", 'click.echo("hi")']


@pytest.mark.parametrize(("text", "expected"), [
    (README_MD, "markdown"),
    (README_RST, "rst"),
    ("# Notes\n\nAlice moved to Paris.", "markdown"),
    ("See [the docs](https://example.com) for more.", "markdown"),
    ("Release notes\n~~~~~~~~~~~~~\n\nAll fixed.", "rst"),
    ("I love hiking!\n\nSee you at 5. #blessed", "text"),
    ("Check https://example.com, it's great :) - really", "text"),
    ("We're #1 in the league!", "text"),
])
def test_detection(text, expected):
    assert detect_format(text) == expected


def test_plain_text_is_left_to_the_caller():
    assert blocks_of("Alice moved to Paris.", "auto") is None
    assert blocks_of("# Not a heading here", "text") is None


def test_the_last_headings_are_embedded_with_the_unit_text():
    from dataclasses import replace as dc_replace

    from fleet_memory.config import IngestConfig
    from fleet_memory.ingest.pipeline import embedded_text
    from fleet_memory.ingest.records import UnitDraft

    draft = UnitDraft(0, "Rich needs Python 3.8.", "semantic", None, None, None, (),
                      context="Rich > Guide > Installation")
    assert embedded_text(draft, IngestConfig()) == "Guide > Installation: Rich needs Python 3.8."
    assert embedded_text(draft, IngestConfig(embed_headings=0)) == "Rich needs Python 3.8."
    assert embedded_text(dc_replace(draft, context=None), IngestConfig()) == "Rich needs Python 3.8."
