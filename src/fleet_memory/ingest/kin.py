"""Relatives named by their relation alone: "my daughter" is Aoife when the user's memory names one
daughter, Aoife.

People tell an assistant "My daughter Aoife is in 3rd class at Scoil Mhuire" once and, months later,
"My daughter's settling in well at Lucan Educate Together". The later unit does not say whose
school it is; a question about Aoife's school does not reach it by her name, and its holder is
"my daughter" rather than Aoife. Coreference (``ingest.coref``) writes the name beside the
relation — "My daughter Aoife's settling in well …" — when the user's recent memory (``ingest.memory``,
and the put's own earlier sentences) names exactly one person by that relation.

What counts as a relation (``RELATIONS``): a parent, a child, a sibling, a spouse, an in-law, a
grandparent by the word the user calls them ("nan" and "gran" are two people) — the relatives one
usually has one of, or names when there are several. Left out on purpose: partners, boyfriends and
girlfriends (they change, and "my partner at the firm" is someone else), aunts, uncles and cousins
(many), and service or workplace roles ("my dentist", "my manager"): those change too, the new
dentist is also "my dentist", and a change is what supersession has to see, not a name written
over it.

How memory names a relative (``named_relatives``): a given name of the lists beside the user's
relation, "my daughter Aoife", "our son, Rory", "my dad, Tom," (the relation opening the clause or
after a preposition: not "I told my mum Dave had left", "bought my son Lego"), or before it, closed
by a mark ("Aoife, my daughter, loves maths"; not "Sadly, my dad passed away", "Sarah, my mum and
my sister", "Aoife, my daughter's friend"). Two names for one relation make it no one's.

Counter-examples, left alone (``coref._relative`` reads the parse): "my eldest daughter", "my son in
Australia", "my husband to be" (a word that may pick out another); "Dad jokes", "Mum guilt" (the
relation as a modifier); "my daughter-in-law" (a longer relation); "my sisters"; "my daughter
Aoife" (named already); "My son is called Jack" (a name given); a sentence that names another
person; a quotation; a relation in a conversation turn (the speaker's "my", which coreference writes
as the speaker's name), and in memory a speaker's "our son Rory" or another user's.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from ..naming import UPPER
from .names import is_listed_name

__all__ = ["RELATIONS", "SQL_PATTERN", "relation_of", "named_relatives", "relatives", "mentions_relative", "TITLED"]

# surface → the relation it names: the relatives a person usually has one of at a time, or calls by a
# word of their own (a grandmother is "nan" or "gran", not both); partners (who change), aunts, uncles
# and cousins (who are many) are left out
RELATIONS: Mapping[str, str] = {
    **dict.fromkeys(("mum", "mom", "mother", "mam", "mummy", "mommy"), "mother"),
    **dict.fromkeys(("dad", "father", "daddy"), "father"),
    **dict.fromkeys(("stepmum", "stepmom", "stepmother"), "stepmother"),
    **dict.fromkeys(("stepdad", "stepfather"), "stepfather"),
    **{w: w for w in ("sister", "brother", "son", "daughter", "wife", "husband", "stepson", "stepdaughter",
                      "sister-in-law", "brother-in-law", "mother-in-law", "father-in-law", "son-in-law",
                      "daughter-in-law", "nan", "nana", "nanna", "gran", "granny", "grandma", "grandmother",
                      "grandad", "granddad", "grandpa", "grandfather")},
}
# relations said as a name, capitalised and bare: "Mum's mobile is …", "Dad's settled in"
TITLED = frozenset({"mum", "mom", "dad", "mam", "nan", "nana", "gran", "granny", "grandma", "grandad", "grandpa"})

_WORDS = "|".join(sorted((re.escape(w) for w in RELATIONS), key=lambda w: (-len(w), w)))
_NAME = rf"{UPPER}[^\W\d_]+(?:[-'’]{UPPER}[^\W\d_]+)?"
# "my daughter Aoife", "our son, Rory", "my dad, Tom," — a relation of the user's, then a given name
_NAMED = re.compile(rf"\b(?i:my|our)\s+({_WORDS}),?\s+({_NAME})(?:\s+({_NAME}))?(?![\w-])")
# what may stand before "my daughter Aoife": nothing, a mark, "and" or a preposition — not a verb
# ("I told my mum Dave had left", "bought my son Lego": the name is someone or something else)
_OPENS = re.compile(r"(?:^|[.!?;:,(\"“—–-]|\b(?i:and|with|to|for|from|of|at|by|about|including))\s*$")
# "Aoife, my daughter," — a given name, then the relation closed by a mark ("Sarah, my mum and my
# sister" is a list; "Aoife, my daughter's friend" is someone else)
_NAMED_BEFORE = re.compile(rf"(?<![\w'’-])({_NAME}),\s+(?i:my|our)\s+({_WORDS})(?=\s*(?:[,.;:!?)]|$))")
_NOT_A_SURNAME = frozenset("""I January February March April May June July August September October November December
    Monday Tuesday Wednesday Thursday Friday Saturday Sunday Christmas Easter""".split())
_SAID = re.compile(rf"\b(?i:my|our)\s+(?:\w+\s+)?(?i:{_WORDS})\b|\b(?:{'|'.join(w.title() for w in TITLED)})\b")

_SQL_WORDS = "|".join(sorted(RELATIONS, key=lambda w: (-len(w), w)))
SQL_PATTERN = (rf"\m([Mm]y|[Oo]ur)\s+({_SQL_WORDS}),?\s+[[:upper:]]"
               rf"|[[:upper:]][[:alpha:]]+,\s+([Mm]y|[Oo]ur)\s+({_SQL_WORDS})\M")
"""The texts that may name a relative, as a PostgreSQL regular expression (``store.reads.context``
reads the user's units that match it; ``named_relatives`` then reads them)."""


def relation_of(word: str) -> str | None:
    """The relation a word names ("Mum" → "mother"), else None."""
    return RELATIONS.get(word.lower().replace("’", "'"))


def named_relatives(text: str) -> list[tuple[str, str]]:
    """``(relation, name)`` for each relative ``text`` names beside the user's relation, the name a
    given name of the lists (``names.is_listed_name``: "Sadly, my dad …" names no one): "my daughter
    Aoife" → ``("daughter", "Aoife")``; "My dad, Tom, is at Oakfield" → ``("father", "Tom")``;
    "Aoife, my daughter, loves maths". A second capitalised word is part of the name ("my sister
    Priya Shah"). Not after a verb ("I told my mum Dave had left"), not a list ("Sarah, my mum and
    my sister"), not someone's relation ("Aoife, my daughter's friend")."""
    out = []
    for m in _NAMED.finditer(text):
        if _OPENS.search(text, 0, m.start()) and is_listed_name(m.group(2)):
            last = m.group(3)
            surname = last is not None and last not in _NOT_A_SURNAME and relation_of(last) is None
            out.append((RELATIONS[m.group(1).lower()], f"{m.group(2)} {last}" if surname else m.group(2)))
    for m in _NAMED_BEFORE.finditer(text):
        if is_listed_name(m.group(1)):
            out.append((RELATIONS[m.group(2).lower()], m.group(1)))
    return out


def relatives(texts: Iterable[str]) -> dict[str, str | None]:
    """Relation → name, for the relations ``texts`` name; None for one they name two people by ("my
    brother Sam" and "my brother Kofi": neither is clearly meant); "my sister Priya" and "my sister
    Priya Shah" are one."""
    found: dict[str, set[str]] = {}
    for text in texts:
        for relation, name in named_relatives(text):
            found.setdefault(relation, set()).add(name)
    return {relation: min(names, key=len) if len({n.split()[0] for n in names}) == 1 else None
            for relation, names in found.items()}


def mentions_relative(text: str) -> bool:
    """``text`` names a relative by the relation ("my daughter", "our son", "Mum's"): memory may say who."""
    return _SAID.search(text) is not None
