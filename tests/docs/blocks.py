"""The fenced code blocks of the documents a user reads: README.md, CHANGELOG.md and docs/*.md."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DOCUMENTS = [REPO / "README.md", REPO / "CHANGELOG.md", *sorted((REPO / "docs").glob("*.md"))]


@dataclass(frozen=True)
class Block:
    path: str  # relative to the repository
    section: str  # the "## " heading the block sits under ("" before the first)
    language: str
    code: str

    @property
    def id(self) -> str:
        return f"{self.path}:{self.section}:{self.language}"


def blocks(paths: list[Path] = DOCUMENTS) -> list[Block]:
    found = []
    for path in paths:
        section = ""
        lines = iter(path.read_text("utf-8").splitlines())
        for line in lines:
            if line.startswith("## "):
                section = line[3:].strip()
            fence = re.match(r"^\s*```(\w*)\s*$", line)
            if fence:
                indent = line.index("`")
                body = []
                for inner in lines:
                    if inner.strip() == "```":
                        break
                    body.append(inner[indent:])
                found.append(Block(str(path.relative_to(REPO)), section, fence.group(1), "\n".join(body) + "\n"))
    return found


def python_blocks() -> list[Block]:
    """Every ```python block: each runs as written in a fresh process (test_readme_python)."""
    return [b for b in blocks() if b.language == "python"]
