"""Names that are never entities, whatever the NER model says: code identifiers, URL and Markdown
fragments, shouted legal words, and aliases that are one common word.

- code: a word with "_" (snake_case), dots inside a word ("os.path"), parentheses or "="; in a
  sentence that reads as code (backticks, "()", "=", raise, import, exception, function, method,
  class, argument …) also a CamelCase word ("StopIteration", "getValue"; "McDonald" never, and
  "YouTube" or "PayPal" only there);
- markup: "](", "://", "www.", "[", "]", "`", "#", "*", "<", ">", "{", "}", "|", "/" or "\\";
- shouting: a name in capitals only, in a sentence mostly in capitals ("WHATSOEVER" in a licence's
  disclaimer; "NASA" or "CNRI" in an ordinary sentence is kept).

``is_common_alias`` refuses a one-word alias that is all capitals or all lower case, or a word the
entity's own multi-word name uses as an ordinary word ("SOFTWARE" for "Python Software
Foundation"). Pure; linear in the name.
"""

from __future__ import annotations

import re

__all__ = ["is_junk_name", "is_common_alias", "mostly_capitals"]

_MARKUP = ("](", "://", "www.", "[", "]", "`", "#", "*", "<", ">", "{", "}", "|", "/", "\\", "(", ")", "=", "_")
_HUMPS = re.compile(r"[a-z][A-Z][a-z]+[A-Z]|[a-z]{2,}[A-Z]")
_DOTTED = re.compile(r"\w\.\w")
_CODE = re.compile(r"`|\(\)|=|\b(?:raise[sd]?|import|return|exceptions?|errors?|functions?|methods?|class(?:es)?"
                   r"|modules?|attributes?|arguments?|parameters?|iterators?|calls?|objects?)\b", re.IGNORECASE)


def mostly_capitals(text: str) -> bool:
    """True when more than half of the letters of a sentence of 4+ words are capitals."""
    letters = [c for c in text if c.isalpha()]
    return len(text.split()) >= 4 and len(letters) >= 12 and sum(c.isupper() for c in letters) > len(letters) / 2


def is_junk_name(name: str, sentence: str = "") -> bool:
    """True for a name that is code, markup or shouting (see the module docstring)."""
    if any(mark in name for mark in _MARKUP):
        return True
    code = _CODE.search(sentence) is not None
    for word in name.split():
        if (code and _HUMPS.search(word)) or (_DOTTED.search(word) and not word.replace(".", "").isupper()):
            return True
    letters = [c for c in name if c.isalpha()]
    return bool(letters) and all(c.isupper() for c in letters) and mostly_capitals(sentence)


def is_common_alias(alias: str, name: str) -> bool:
    """True for an alias that is one common word rather than another name for ``name``."""
    words = alias.split()
    if len(words) != 1:
        return False
    word = words[0]
    if word.islower() or (word.isupper() and len(word) > 4 and not _looks_like_acronym(word, name)):
        return True
    return len(name.split()) > 1 and word.lower() in (w.lower() for w in name.split()) and not word[:1].isupper()


def _looks_like_acronym(word: str, name: str) -> bool:
    initials = "".join(w[:1] for w in name.split()).upper()
    return word == initials
