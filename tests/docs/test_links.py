"""Every relative link of the documents a user reads reaches a file of the repository, and every
``#anchor`` one of that document's headings (as GitHub and PyPI make them: lower case, punctuation
dropped, spaces to hyphens)."""

from __future__ import annotations

import functools
import re
from pathlib import Path

import pytest

from .blocks import DOCUMENTS, REPO

LINK = re.compile(r"\]\(([^)\s]+)\)")
FENCE = re.compile(r"^\s*```")


def anchor(heading: str) -> str:
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


@functools.cache
def anchors(path: Path) -> frozenset[str]:
    return frozenset(anchor(line.lstrip("#")) for line in _prose(path) if re.match(r"#+ ", line))


@functools.cache
def _prose(path: Path) -> tuple[str, ...]:
    """The document's lines outside fenced blocks (a shell comment is no heading)."""
    lines, fenced = [], False
    for line in path.read_text("utf-8").splitlines():
        if FENCE.match(line):
            fenced = not fenced
        elif not fenced:
            lines.append(line)
    return tuple(lines)


def links(path: Path) -> list[str]:
    return [m[1] for line in _prose(path) for m in LINK.finditer(line)
            if not m[1].startswith(("http://", "https://", "mailto:"))]


def test_the_anchor_is_the_headings_slug():
    assert anchor("Recall quality: LoCoMo") == "recall-quality-locomo"
    assert anchor("4. Citus: distributed by `agent_id`") == "4-citus-distributed-by-agent_id"


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda p: str(p.relative_to(REPO)))
def test_every_relative_link_reaches_its_file_and_heading(document: Path):
    broken = []
    for link in links(document):
        path, _, fragment = link.partition("#")
        target = (document.parent / path).resolve() if path else document
        if not target.exists():
            broken.append(f"{link}: no such file")
        elif fragment and target.suffix == ".md" and fragment not in anchors(target):
            broken.append(f"{link}: no heading makes #{fragment}")
    assert not broken, f"{document.relative_to(REPO)}: {broken}"
