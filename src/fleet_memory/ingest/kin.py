"""Relatives named by their relation alone: "my daughter" is Aoife when the user's memory names one
daughter, Aoife.

People tell an assistant "My daughter Aoife is in 3rd class at Scoil Mhuire" once and, months later,
"My daughter's settling in well at Lucan Educate Together". The later unit does not say whose
school it is; a question about Aoife's school does not reach it by her name, and its holder is
"my daughter" rather than Aoife. Coreference (``ingest.coref``) writes the name beside the
relation — "My daughter Aoife's settling in well …" — when the user's memory (``ingest.memory``:
their own units among the agent's latest) and the put's own words together name exactly one person
by that relation and say nothing of another. Precision first: a wrong name is far worse than none,
and every rule below answers a wrong name two reviews wrote.

What counts as a relation (``RELATIONS``): a parent, a child, a sibling, a spouse, an in-law, a
grandparent by the word the user calls them ("nan" and "gran" are two people) — the relatives one
usually has one of, or names when there are several. Left out on purpose: partners, boyfriends and
girlfriends (they change, and "my partner at the firm" is someone else), aunts, uncles and cousins
(many), and service or workplace roles ("my dentist", "my manager"): those change too, the new
dentist is also "my dentist", and a change is what supersession has to see, not a name written
over it. A spouse memory named years ago and never said to have gone is still the spouse: an
accepted risk, as is an agent shared by people who give no ``user_id`` (one user to memory).

How memory names a relative (``named_relatives``): in the user's own words (not a quotation, not
after a colon: 'She texted: "my son Rory has chickenpox"', "Mel: My son Rory …"), a given name of
the lists that fits the relation's pronoun ("my mum Dave" is none) beside the user's relation: "my
daughter Aoife", "my dad, Tom, is …" (the apposition closed: not "Apart from my dad, Tom is …",
"with my mum, Sarah and Jo"), the relation opening the clause or after a preposition (not "I told
my mum Dave had left", "bought my son Lego"); or before it, closed by a mark ("Aoife, my daughter,
loves maths"; not "Sadly, my dad passed away", "Sarah, my mum, and my sister", "Aoife, my
daughter's friend"). A relation is no one's (``several``) when two names are given for it, or a
text says there are or were several ("my daughters", "my other daughter", "my youngest daughter",
"three brothers", "my late husband", "my ex-wife") or that the tie ended ("My husband John died",
"My wife and I split up").

Counter-examples, left alone (``coref._relative`` reads the parse): "my eldest daughter", "my son in
Australia", "my husband to be" (a word that may pick out another); "Dad jokes", "Mum guilt", "Dad's
Army" (the relation as a modifier or in a name); "my daughter-in-law" (a longer relation); "my
sisters"; "my daughter Aoife" (named already); "My son is called Jack" (a name given); a message
that names someone else ("My brother is getting married! Kofi met his fiancée"); a bare "Dad" in a
message about children ("Dad's taking the kids to football": the other parent, maybe); a quotation
or what follows a colon; a relation in a conversation turn (the speaker's "my", which coreference
writes as the speaker's name), and in memory a speaker's "our son Rory" or another user's.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from ..naming import UPPER
from .names import is_listed_name, listed_gender

__all__ = ["RELATIONS", "SQL_PATTERN", "TITLED", "merged", "mentions_relative", "named_relatives", "relation_of",
           "relatives", "several"]

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
_NAMED = re.compile(rf"\b(?i:my|our)\s+({_WORDS})(,?)\s+({_NAME})(?:\s+({_NAME}))?(?![\w-])")
# what may stand before "my daughter Aoife": nothing, a mark, "and" or a preposition — not a verb
# ("I told my mum Dave had left", "bought my son Lego": the name is someone or something else)
_OPENS = re.compile(r"(?:^|[.!?;,(—–-]|\b(?i:and|with|to|for|from|of|at|by|about|including))\s*$")
# after "my dad, Tom": the apposition closed ("my dad, Tom, is at Oakfield"), not a clause or a list
# ("Apart from my dad, Tom is …", "with my mum, Sarah and Jo")
_CLOSED = re.compile(r"\s*(?:[.;!?)]|,(?!\s*(?i:and|or)\b)|$)")
# "Aoife, my daughter," — a given name, then the relation closed by a mark ("Sarah, my mum and my
# sister" and "Sarah, my mum, and my sister" are lists; "Aoife, my daughter's friend" is someone else)
_NAMED_BEFORE = re.compile(rf"(?<![\w'’-])({_NAME}),\s+(?i:my|our)\s+({_WORDS})"
                           r"(?=\s*(?:[.;!?)]|$|,(?!\s*(?i:and|or)\b)))")
_NOT_A_SURNAME = frozenset("""I January February March April May June July August September October November December
    Monday Tuesday Wednesday Thursday Friday Saturday Sunday Christmas Easter""".split())
_SAID = re.compile(rf"\b(?i:my|our)\s+(?:\w+\s+)?(?i:{_WORDS})\b|\b(?:{'|'.join(w.title() for w in TITLED)})\b")
# someone else's words: a quotation, or what follows a colon ("she texted: my son Rory has …", "Mel: …")
_QUOTED = re.compile(r"\"[^\"]*\"|“[^”]*”|:[^\n]*")
# the user has, or had, more than one: "my daughters", "my other daughter", "my youngest daughter",
# "three brothers", "my late husband", "my ex-wife"; or the tie ended: "my husband John died", "my
# wife and I split up"
_MODIFIER = (r"other|eldest|oldest|youngest|younger|older|middle|little|big|baby|twin|first|second|third|half|step"
             r"|late|ex|former|new|two|three|four|five|both")
_PLURAL = {f"{w}s": w for w in ("daughter", "son", "sister", "brother", "stepdaughter", "stepson")}
_SEVERAL = re.compile(rf"\b(?:{_MODIFIER})[\s-]+({_WORDS})s?(?![\w-])"
                      rf"|\b(?:my|our)\s+(?:\w+\s+)?({'|'.join(_PLURAL)})\b", re.IGNORECASE)
_ENDED = re.compile(r"\b(?:died|passed away|passed on|funeral|divorc\w*|split up|separated|broke up|widow\w*)\b",
                    re.IGNORECASE)
_OF_MINE = re.compile(rf"\b(?:my|our)\s+({_WORDS})(?![\w-])", re.IGNORECASE)
_SENTENCE = re.compile(r"[^.!?\n]+")
_FEMALE = frozenset({"mother", "stepmother", "sister", "daughter", "wife", "stepdaughter", "sister-in-law",
                     "mother-in-law", "daughter-in-law", "nan", "nana", "nanna", "gran", "granny", "grandma",
                     "grandmother"})

_SQL_WORDS = "|".join(sorted(RELATIONS, key=lambda w: (-len(w), w)))
SQL_PATTERN = rf"\m(my|our)\s+([[:alpha:]-]+\s+)?({_SQL_WORDS})|\m({_MODIFIER})[\s-]+({_SQL_WORDS})"
"""The texts that may name a relative or tell of several, as a PostgreSQL regular expression read
without case (``store.reads.context`` reads the user's units that match it; ``relatives`` then
reads them)."""


def relation_of(word: str) -> str | None:
    """The relation a word names ("Mum" → "mother"), else None."""
    return RELATIONS.get(word.lower().replace("’", "'"))


def _own_words(text: str) -> str:
    """``text`` without what it quotes or gives after a colon: someone else's words ('She texted: "my
    son Rory has chickenpox"', "Mel: My son Rory started school")."""
    return _QUOTED.sub(" ", text)


def _fits(relation: str, name: str) -> bool:
    """The name's usual pronoun, when the lists know it, is the relation's ("my mum Dave" is no name)."""
    gender = listed_gender(name)
    return gender is None or gender == "n" or (gender == "f") == (relation in _FEMALE)


def named_relatives(text: str) -> list[tuple[str, str]]:
    """``(relation, name)`` for each relative ``text`` names beside the user's relation, in the user's
    own words (not a quotation, not after a colon), the name a given name of the lists that fits the
    relation (``names.is_listed_name``: "Sadly, my dad …" names no one): "my daughter Aoife" →
    ``("daughter", "Aoife")``; "My dad, Tom, is at Oakfield" → ``("father", "Tom")``; "Aoife, my
    daughter, loves maths". A second capitalised word is part of the name ("my sister Priya Shah").
    Not after a verb ("I told my mum Dave had left"), not a clause or a list after a comma ("Apart
    from my dad, Tom is …", "with my mum, Sarah and Jo", "Sarah, my mum, and my sister"), not
    someone's relation ("Aoife, my daughter's friend")."""
    text = _own_words(text)
    out = []
    for m in _NAMED.finditer(text):
        relation, first, last = RELATIONS[m.group(1).lower()], m.group(3), m.group(4)
        surname = last is not None and last not in _NOT_A_SURNAME and relation_of(last) is None
        end = m.end() if surname else m.end(3)
        if (_OPENS.search(text, 0, m.start()) and is_listed_name(first) and _fits(relation, first)
                and (not m.group(2) or _CLOSED.match(text, end))):
            out.append((relation, f"{first} {last}" if surname else first))
    for m in _NAMED_BEFORE.finditer(text):
        relation = RELATIONS[m.group(2).lower()]
        if is_listed_name(m.group(1)) and _fits(relation, m.group(1)):
            out.append((relation, m.group(1)))
    return out


def several(text: str) -> set[str]:
    """The relations ``text`` says the user has more than one of, or had ("my daughters", "my other
    daughter", "my youngest daughter", "three brothers", "my late husband", "my ex-wife"), or whose
    tie it says ended ("My husband John died in 2019", "My wife and I split up"): no one of memory
    is clearly meant by them."""
    found = {RELATIONS[m.group(1).lower()] if m.group(1) else _PLURAL[m.group(2).lower()]
             for m in _SEVERAL.finditer(text)}
    for sentence in _SENTENCE.findall(text):
        if _ENDED.search(sentence):
            found |= {RELATIONS[m.group(1).lower()] for m in _OF_MINE.finditer(sentence)}
    return found


def relatives(texts: Iterable[str]) -> dict[str, str | None]:
    """Relation → name, for the relations ``texts`` name; None for one they name two people by ("my
    brother Sam" and "my brother Kofi": neither is clearly meant) or say there are, or were, several
    of (``several``); "my sister Priya" and "my sister Priya Shah" are one."""
    found: dict[str, set[str]] = {}
    unclear: set[str] = set()
    for text in texts:
        for relation, name in named_relatives(text):
            found.setdefault(relation, set()).add(name)
        unclear |= several(text)
    out: dict[str, str | None] = {
        relation: min(names, key=len) if len({n.split()[0] for n in names}) == 1 else None
        for relation, names in found.items()}
    return out | dict.fromkeys(unclear)


def merged(*maps: Mapping[str, str | None]) -> dict[str, str | None]:
    """``relatives`` of several sources as one: a relation they name differently, or one says is
    unclear, is no one's."""
    out: dict[str, str | None] = {}
    for found in maps:
        for relation, name in found.items():
            known = out.get(relation, name)
            out[relation] = name if relation not in out or known and name and known.split()[0] == name.split()[0] \
                else None
    return out


def mentions_relative(text: str) -> bool:
    """``text`` names a relative by the relation ("my daughter", "our son", "Mum's"): memory may say who."""
    return _SAID.search(text) is not None
