"""How an entity name is compared: one pure normaliser, used by ingestion (the key of the unique
name index), recall (names in a query), entity administration and pictures.

``normalize_name``: curly apostrophes made straight, whitespace collapsed, case-folded, a leading
"the " and a trailing possessive ("'s", "'") removed, outer punctuation stripped —
"The  Google's " → "google", "Alice’s" → "alice", "New  York" → "new york".

``lookup_forms``: the forms under which a name typed by someone (a query, a CLI argument) is
looked up among an agent's entities: its normalised form (compared with the stored normalised
names) and the surface forms compared with stored aliases (as typed, its normalised form, and
both with each word capitalised), so "mel", "Mel" and "Mel's" all find the alias "Mel".
"""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = ["UPPER", "normalize_name", "lookup_forms"]

UPPER = "[" + "".join(c for c in map(chr, range(0x41, 0x530)) if c.isupper()) + "]"
"""A regular-expression class: the capital letters of the Latin, Greek and Cyrillic alphabets.
``[A-Z]`` alone took "Élodie", "Ólafur" or "Şebnem" for no name."""

_SPACE = re.compile(r"\s+")


def normalize_name(name: str) -> str:
    """The normalised form of an entity name (see the module docstring)."""
    text = _SPACE.sub(" ", name.replace("’", "'")).strip().casefold()
    if text.startswith("the ") and len(text) > 4:
        text = text[4:]
    for suffix in ("'s", "'"):
        if text.endswith(suffix) and len(text) > len(suffix):
            text = text[: -len(suffix)]
    return text.strip(" .,;:!?\"'()[]")


def _capitalised(text: str) -> str:
    return " ".join(w[:1].upper() + w[1:] for w in text.split())


def lookup_forms(names: Iterable[str]) -> tuple[list[str], list[str]]:
    """``(normalised names, alias surfaces)`` to look ``names`` up with (see the module docstring),
    each de-duplicated in order; names that normalise to nothing are left out."""
    normalized: dict[str, None] = {}
    surfaces: dict[str, None] = {}
    for name in names:
        typed = " ".join(name.split())
        norm = normalize_name(typed)
        if not norm:
            continue
        normalized[norm] = None
        for form in (typed, _capitalised(typed), norm, _capitalised(norm)):
            surfaces[form] = None
    return list(normalized), list(surfaces)
