"""Relatives named by their relation alone: "my daughter" is Aoife when the user's memory names one
daughter, Aoife.

People tell an assistant "My daughter Aoife is in 3rd class at Scoil Mhuire" once and, months later,
"My daughter's settling in well at Lucan Educate Together". The later unit does not say whose
school it is; a question about Aoife's school does not reach it by her name, and its holder is
"my daughter" rather than Aoife. Coreference (``ingest.coref``) writes the name beside the
relation — "My daughter Aoife's settling in well …" — when the user's recent memory (``ingest.memory``,
and the put's own earlier sentences) names exactly one person by that relation.

What counts as a relation: a family tie or a partner (``RELATIONS``), the words one person has one
or a few of and keeps ("my daughter", "my mum", "my husband"). A service or a workplace role ("my
dentist", "my manager", "my landlord") is left out on purpose: those change — the user's new
dentist is also "my dentist" — and a change is what supersession has to see, not a name written
over it.

Counter-examples, left alone: "my new partner", "my eldest daughter", "my other sister" (a modifier
may pick out another person: ``coref`` checks the parse); "my sisters" (several); "my daughter
Aoife" (named already); a relation memory names two people by ("my brother Sam" and "my brother
Kofi": neither is clearly meant); a relation in a conversation turn (the speaker's "my", which
coreference writes as the speaker's name).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from ..naming import UPPER

__all__ = ["RELATIONS", "SQL_PATTERN", "relation_of", "named_relatives", "relatives", "mentions_relative", "TITLED"]

# surface → the relation it names (one key per person kind)
RELATIONS: Mapping[str, str] = {
    **dict.fromkeys(("mum", "mom", "mother", "mam", "mummy", "mommy"), "mother"),
    **dict.fromkeys(("dad", "father", "daddy"), "father"),
    **dict.fromkeys(("grandma", "granny", "nan", "nana", "nanna", "gran", "grandmother"), "grandmother"),
    **dict.fromkeys(("grandad", "granddad", "grandpa", "grandfather"), "grandfather"),
    **dict.fromkeys(("aunt", "auntie", "aunty"), "aunt"),
    **dict.fromkeys(("fiancé", "fiance", "fiancée", "fiancee"), "fiancé"),
    **{w: w for w in ("sister", "brother", "son", "daughter", "wife", "husband", "partner", "girlfriend",
                      "boyfriend", "uncle", "niece", "nephew", "cousin", "stepmum", "stepmom", "stepdad",
                      "stepson", "stepdaughter", "sister-in-law", "brother-in-law", "mother-in-law",
                      "father-in-law", "son-in-law", "daughter-in-law", "godson", "goddaughter", "godmother",
                      "godfather")},
}
# relations said as a name, capitalised and bare: "Mum's mobile is …", "Dad's settled in"
TITLED = frozenset({"mum", "mom", "dad", "mam", "nan", "nana", "gran", "granny", "grandma", "grandad", "grandpa"})

_WORDS = "|".join(sorted((re.escape(w) for w in RELATIONS), key=lambda w: (-len(w), w)))
_NAME = rf"{UPPER}[^\W\d_]+(?:[-'’]{UPPER}[^\W\d_]+)?"
_NOT_A_NAME = frozenset("""I And But So Or The A An He She They We It You Is Was Has Had Who What When Where Why How
    In On At For To From With After Before Since Until By Of About Last This That Next Today Yesterday Tomorrow
    Mr Mrs Ms Mx Dr Also Just Still Now Then""".split())
# "my daughter Aoife", "our son, Rory", "my dad, Tom," — a relation of the user's, then the name
_NAMED = re.compile(rf"\b(?i:my|our)\s+({_WORDS}),?\s+({_NAME})(?:\s+({_NAME}))?(?![\w'’-])")
# "Aoife, my daughter" — the name, then the relation
_NAMED_BEFORE = re.compile(rf"\b({_NAME}),\s+(?i:my|our)\s+({_WORDS})\b")
_SAID = re.compile(rf"\b(?i:my|our)\s+(?:\w+\s+)?(?i:{_WORDS})\b|\b(?:{'|'.join(w.title() for w in TITLED)})\b")
_MONTHS_AND_DAYS = frozenset("""January February March April May June July August September October November
    December Monday Tuesday Wednesday Thursday Friday Saturday Sunday""".split())


_SQL_WORDS = "|".join(sorted(RELATIONS, key=lambda w: (-len(w), w)))
SQL_PATTERN = (rf"\m([Mm]y|[Oo]ur)\s+({_SQL_WORDS}),?\s+[[:upper:]]"
               rf"|[[:upper:]][[:alpha:]]+,\s+([Mm]y|[Oo]ur)\s+({_SQL_WORDS})\M")
"""The texts that may name a relative, as a PostgreSQL regular expression (``store.reads.context``
reads the user's units that match it; ``named_relatives`` then reads them)."""


def relation_of(word: str) -> str | None:
    """The relation a word names ("Mum" → "mother"), else None."""
    return RELATIONS.get(word.lower().replace("’", "'"))


def named_relatives(text: str) -> list[tuple[str, str]]:
    """``(relation, name)`` for each relative ``text`` names beside the user's relation ("my
    daughter Aoife" → ``("daughter", "Aoife")``; "My dad, Tom, is at Oakfield" → ``("father",
    "Tom")``). A second capitalised word is part of the name when it is not the next sentence's
    start ("my sister Priya Shah")."""
    out = []
    for m in _NAMED.finditer(text):
        name = m.group(2) if m.group(3) is None or m.group(3) in _NOT_A_NAME else f"{m.group(2)} {m.group(3)}"
        if m.group(2) not in _NOT_A_NAME and m.group(2) not in _MONTHS_AND_DAYS:
            out.append((RELATIONS[m.group(1).lower()], name))
    for m in _NAMED_BEFORE.finditer(text):
        if m.group(1) not in _NOT_A_NAME and m.group(1) not in _MONTHS_AND_DAYS:
            out.append((RELATIONS[m.group(2).lower()], m.group(1)))
    return out


def relatives(texts: Iterable[str]) -> dict[str, str]:
    """Relation → name, for the relations ``texts`` name exactly one person by ("my brother Sam" and
    "my brother Kofi" leave "brother" out; "my sister Priya" and "my sister Priya Shah" are one)."""
    found: dict[str, set[str]] = {}
    for text in texts:
        for relation, name in named_relatives(text):
            found.setdefault(relation, set()).add(name)
    out = {}
    for relation, names in found.items():
        first = {n.split()[0] for n in names}
        if len(first) == 1:
            out[relation] = min(names, key=len)
    return out


def mentions_relative(text: str) -> bool:
    """``text`` names a relative by the relation ("my daughter", "our son", "Mum's"): memory may say who."""
    return _SAID.search(text) is not None
