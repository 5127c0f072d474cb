"""What a query offers the entry points besides its embedding: content words for full text, and
name candidates for the entity channel. Pure string work, microseconds per query.

- ``content_words``: lower-cased alphanumeric words minus a small stop list and the words that
  only say when (``PRESENT_WORDS``, ``PAST_WORDS``: "these days", "at the moment", "used to",
  "originally" — they mark the present or the past and name no content; "days" matched a unit
  whose only tie to "What do I eat these days?" was the word "day"), de-duplicated in order. They
  are OR-ed in the full-text query; PostgreSQL stems them and drops its own stop words.
- ``name_candidates``: every run of one to three words (NFKC), each word normalised as entity
  names are (``naming.normalize_name``). Runs that start or end with a stop word are left out;
  the database decides which candidates are names the agent knows (the one lookup rule,
  ``store.tables.entities.lookup_entities``), so no NER model runs at recall time.
"""

from __future__ import annotations

import re
import unicodedata

from ..naming import normalize_name

__all__ = ["content_words", "name_candidates", "STOP_WORDS", "PRESENT_WORDS", "PAST_WORDS"]

STOP_WORDS = frozenset(
    """a about above after again against all am an and any are aren't as at be because been before being below
    between both but by can could did didn't do does doesn't doing don't down during each few for from further
    had has have having he her here hers herself him himself his how i if in into is isn't it it's its itself
    just me more most my myself no nor not now of off on once only or other our ours ourselves out over own
    same she should so some such than that the their theirs them themselves then there these they this those
    through to too under until up very was wasn't we were what when where which while who whom why will with
    would you your yours yourself yourselves ever also get got kind like s t""".split()
)

PRESENT_WORDS = r"still|now|right now|currently|these days|at the moment|nowadays|any ?more|at present"
"""Phrases that mark a question about the present (a regex alternation; ``recall.current`` reads it too)."""
PAST_WORDS = (r"before|used to|previously|originally|formerly|former|previous|(?<!how )old|earlier|at first"
              r"|back then|ago")
"""Phrases that mark a question about the past ("how old" asks an age)."""
_TENSE = re.compile(rf"\b({PRESENT_WORDS}|{PAST_WORDS})\b", re.IGNORECASE)

_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*", re.UNICODE)


def _words(query: str) -> list[str]:
    return _WORD.findall(unicodedata.normalize("NFKC", query))


def content_words(query: str, limit: int = 32) -> list[str]:
    """Alphanumeric content words of the query (safe to put in a tsquery), at most ``limit``."""
    seen: dict[str, None] = {}
    for word in _words(_TENSE.sub(" ", query)):
        for part in re.findall(r"[a-z0-9]+", word.lower()):
            if part not in STOP_WORDS and len(part) > 1 and part not in seen:
                seen[part] = None
    return list(seen)[:limit]


def name_candidates(query: str, max_words: int = 3, limit: int = 64) -> list[str]:
    """Normalised 1–3 word runs of the query that could name an entity or a speaker."""
    words = [normalize_name(w) for w in _words(query)]
    out: dict[str, None] = {}
    for size in range(max_words, 0, -1):
        for i in range(len(words) - size + 1):
            gram = words[i:i + size]
            if not all(gram) or gram[0] in STOP_WORDS or gram[-1] in STOP_WORDS:
                continue
            out[" ".join(gram)] = None
    return list(out)[:limit]
