"""Relatives named by their relation alone: "my daughter" is Aoife when the user's memory names one
daughter, Aoife.

People tell an assistant "My daughter Aoife is in 3rd class at Scoil Mhuire" once and, months later,
"My daughter's settling in well at Lucan Educate Together". The later unit does not say whose
school it is; a question about Aoife's school does not reach it by her name, and its holder is
"my daughter" rather than Aoife. Coreference (``ingest.coref``) writes the name beside the
relation — "My daughter Aoife's settling in well …" — when the user's memory (``ingest.memory``:
their own units among the agent's latest) and the put's own words together name exactly one person
by that relation and say nothing of another. Precision first: a wrong name is far worse than none,
and every rule below answers a wrong name one of three reviews wrote.

What counts as a relation (``RELATIONS``): a parent, a child, a sibling, a spouse (also "hubby" and
"the missus", bare or with "the": always the speaker's, ``OWN_WITH_THE``), an in-law, a grandparent
by the word the user calls them ("nan" and "gran" are two people) — the relatives one usually has
one of, or names when there are several. Left out on purpose: partners, boyfriends and
girlfriends (they change, and "my partner at the firm" is someone else), aunts, uncles and cousins
(many), and service or workplace roles ("my dentist", "my manager"): those change too, the new
dentist is also "my dentist", and a change is what supersession has to see, not a name written
over it. A spouse memory named years ago and never said to have gone is still the spouse: an
accepted risk, as are an agent shared by people who give no ``user_id`` (one user to memory), a
self-description ("Mum needs a coffee after today"), and someone else's words pasted without a mark
that sets them apart (after "Save this text from my sister:" the colon does; in "Save this text from
my sister. Hey! my son Rory …" nothing does).

How memory names a relative (``named_relatives``): in the user's own words (not a quotation in
double or single marks, not after a colon: 'She texted: "my son Rory has chickenpox"', "Mel: My son
Rory …"; a label's colon is the user's own, "Update: my daughter …": ``is_label``), a given name of
the lists that fits the relation's pronoun ("my mum Dave" is none) beside the user's relation: "my
daughter Aoife", "my dad, Tom, is …" (the apposition closed: not "Apart from my dad, Tom is …",
"with my mum, Sarah and Jo", "with my mum, Sarah, Jo and Tom", "my mum Jordan and Sam"), the
relation opening the clause, or after a preposition when no verb follows the name (not "I told my
mum Dave had left", "bought my son Lego", "Just heard from my mum Sarah's pregnant"); before it,
closed by a mark ("Aoife, my daughter, loves maths"; not "Sadly, my dad passed away", "Sarah, my
mum, and my sister", "Aoife, my daughter's friend"); or "Niamh is my daughter", "my daughter's name
is Niamh" ("my wife's called Ngaire"). Never "my mother in law" as "my mother". A relation is no
one's (``several``) when two names are given for it, or a text says there are or were several ("my
daughters", "my other daughter", "another daughter", "my youngest daughter", "my youngest, Niamh",
"2 daughters", "three brothers", "my elder brother", "my late husband", "my ex-wife"), that the tie
ended ("My husband John died", "I lost my wife", "Claire passed in 2019" of a wife named Claire),
or, for a spouse, any divorce, separation or second marriage.

Counter-examples, left alone (``coref._relative`` reads the parse): "my eldest daughter", "my son in
Australia", "my husband to be" (a word that may pick out another); "Dad jokes", "Mum guilt", "Dad's
Army" (the relation as a modifier or in a name); "my daughter-in-law" (a longer relation); "my
sisters"; "my daughter Aoife" (named already); "My son is called Jack" (a name given); a message
that names someone else ("My brother is getting married! Kofi met his fiancée", a given name the
model called no person included); a bare "Dad" or "Mum" in a message about children or for a user
memory knows to have a child ("Dad's taking the kids to football", "Dad's doing bath time": the
other parent, maybe), "Mum's the word", "Mum's taxi"; "the Our Father" (a capitalised "My" or "Our"
inside a sentence: a title); "my mother in law"; a quotation or what follows a colon; a relation in
a conversation turn (the speaker's "my", which coreference writes as the speaker's name), and in
memory a speaker's "our son Rory" or another user's. Children or siblings told of together in memory
("we have two boys", "the girls", "Aoife's little sister", "my 3 year old daughter", "a 13yo too",
"pregnant", "the youngest of four", "my other lad") make those relations no one's; so does, for a spouse, any word of
a marriage ending or a new one ("moved out", "got married", "honeymoon", "my ex"). A message that
carries someone else's words across its sentences (after a colon, a quotation of more than one
sentence: ``pastes``) gets no name anywhere.

Measured by ``bench/relatives.py`` on histories written by people who had not read these rules,
half of them traps (docs/benchmarks.md, "Relatives named by the relation alone"): a name it writes
is nearly always the right one, and it leaves most relations alone; what it gets wrong is mostly a
second child or sibling the user mentions in a way no rule reads.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from ..language.dates import DAY_NAMES
from ..language.months import MONTH_NAMES
from ..naming import UPPER
from .names import is_listed_name, listed_gender

__all__ = ["OWN_WITH_THE", "RELATIONS", "SQL_PATTERN", "TITLED", "is_label", "merged_relatives", "mentions_relative",
           "named_relatives", "pastes", "relation_of", "relatives", "several"]

# surface → the relation it names: the relatives a person usually has one of at a time, or calls by a
# word of their own (a grandmother is "nan" or "gran", not both); partners (who change), aunts, uncles
# and cousins (who are many) are left out
RELATIONS: Mapping[str, str] = {
    **dict.fromkeys(("mum", "mom", "mother", "mam", "mummy", "mommy"), "mother"),
    **dict.fromkeys(("dad", "father", "daddy"), "father"),
    **dict.fromkeys(("stepmum", "stepmom", "stepmother"), "stepmother"),
    **dict.fromkeys(("stepdad", "stepfather"), "stepfather"),
    "hubby": "husband", "missus": "wife",
    **{w: w for w in ("sister", "brother", "son", "daughter", "wife", "husband", "stepson", "stepdaughter",
                      "sister-in-law", "brother-in-law", "mother-in-law", "father-in-law", "son-in-law",
                      "daughter-in-law", "nan", "nana", "nanna", "gran", "granny", "grandma", "grandmother",
                      "grandad", "granddad", "grandpa", "grandfather")},
}
# relations said as a name, capitalised and bare: "Mum's mobile is …", "Dad's settled in"
TITLED = frozenset({"mum", "mom", "dad", "mam", "nan", "nana", "gran", "granny", "grandma", "grandad", "grandpa",
                    "hubby"})
# a spouse said with "the": always the speaker's ("the hubby's cooking tonight", "the missus")
OWN_WITH_THE = frozenset({"hubby", "missus"})

_WORDS = "|".join(sorted((re.escape(w) for w in RELATIONS), key=lambda w: (-len(w), w)))
_REL = rf"(?i:{_WORDS})(?![\w-])(?![^\S\n]+(?i:in)[\s-]+(?i:law)\b)"  # not "my mother in law"
_NAME = rf"{UPPER}[^\W\d_]+(?:[-'’]{UPPER}[^\W\d_]+)?"
_GAP = r"[^\S\n]+"  # spaces within a line: a name on the next line is the next line's
# "my daughter Aoife", "our son, Rory", "my dad, Tom," — a relation of the user's, then a given name
_NAMED = re.compile(rf"\b(?i:my|our){_GAP}({_REL})(,?){_GAP}({_NAME})(?:{_GAP}({_NAME}))?(?![\w-])")
# what may stand before "my daughter Aoife": nothing, a mark or "and" (the clause's start), or a
# preposition — not a verb ("I told my mum Dave had left", "bought my son Lego")
_OPENS = re.compile(r"(?:^|[.!?;,(—–-]|\b(?i:and))\s*$|\b(?i:with|to|for|from|of|at|by|about|including)\s*$")
_STARTS = re.compile(r"(?:^|[.!?;,(—–-]|\b(?i:and))\s*$")
# after a name that follows a preposition, a verb says the name is a clause's subject ("Just heard
# from my mum Sarah's pregnant", "I mentioned to my mum Sarah was …", "worried about my dad Tom thinks …")
_VERB_NEXT = re.compile(r"(?:['’]s|[^\S\n]+(?i:is|was|has|had|will|would|can|could|should|did|does|says|said|thinks"
                        r"|thought|wants|needs|told|reckons|reckoned|'s|’s))\b")
# after "my dad, Tom": the apposition closed ("my dad, Tom, is at Oakfield"), not a clause or a list
# ("Apart from my dad, Tom is …", "with my mum, Sarah and Jo", "with my mum, Sarah, Jo and Tom")
_CLOSED = re.compile(rf"\s*(?:[.;!?)]|,(?!\s*(?:(?i:and|or)\b|{_NAME}\s*(?:,|(?i:and|or|&)\b)))|$)")
# "my mum Jordan and Sam": a list of names, not an apposition
_AND_NAME = re.compile(rf"\s*(?:,|(?i:and|or|&))\s*{_NAME}")
# "Aoife, my daughter," — a given name, then the relation closed by a mark ("Sarah, my mum and my
# sister", "Sarah, my mum, and my sister", "Sarah, my mum, my sister and the kids" are lists; "Aoife,
# my daughter's friend" is someone else)
_NAMED_BEFORE = re.compile(rf"(?<![\w'’-])({_NAME}),\s+(?i:my|our)\s+({_REL})"
                           rf"(?=\s*(?:[.;!?)]|$|,(?!\s*(?:(?i:and|or|my|our)\b|{_NAME}))))")
# the other ways to say who a relative is, read to tell two apart: "Niamh is my daughter", "my
# daughter's name is Niamh", "my daughter is called Niamh"
_IS_MY = re.compile(rf"(?<![\w'’-])({_NAME}){_GAP}(?i:is|was){_GAP}(?i:my|our){_GAP}({_REL})")
_NAME_IS = re.compile(rf"\b(?i:my|our){_GAP}({_REL})"
                      rf"(?:['’]s{_GAP}name{_GAP}is|(?:{_GAP}is|['’]s){_GAP}(?:called|named))"
                      rf"{_GAP}({_NAME})")
# "Mum (Margaret)", "my stepdad (Gary)": the relation, then a given name in brackets
_BRACKETED = re.compile(rf"\b({_REL}){_GAP}?\(\s*({_NAME})\s*\)")
_NOT_OURS = frozenset({"his", "her", "their", "your", "a", "an", "the", "whose"})
_OWNED = ("'s", "’s", "s'")
_NOT_A_SURNAME = frozenset({"I", "Christmas", "Easter", *(w.title() for w in (*MONTH_NAMES, *DAY_NAMES))})
_SAID = re.compile(rf"\b(?i:my|our)\s+(?:\w+\s+)?(?i:{_WORDS})\b|\b(?:{'|'.join(w.title() for w in TITLED)})\b"
                   rf"|\b(?i:(?:the\s+)?(?:{'|'.join(OWN_WITH_THE)}))\b")
# a line's opening label, whose colon gives the user's own words: "Update:", "Quick question:", "PS:"
_LABEL = re.compile(r"(?im)^[^\S\n]*(?:(?:quick|small|little|big|good|bad|great|sad|happy|exciting|short|another)"
                    r"[^\S\n]+)?(?:update|news|question|edit|ps|p\.s\.|fyi|btw|note|reminder|context)[^\S\n]*:")
# someone else's words: a quotation (double or single marks; an apostrophe inside a word is none), or
# what follows a colon ("she texted: my son Rory has …", "Mel: …")
_QUOTED = re.compile(r"\"[^\"]*\"|“[^”]*”|‘[^’]*’|(?<!\w)'(?:[^']|'(?=\w))*'(?!\w)|:[^\n]*")
# the user has, or had, more than one: "my daughters", "my other daughter", "my youngest daughter",
# "three brothers", "2 daughters", "another daughter", "my late husband", "my ex-wife", "my youngest,
# Niamh"; or the tie ended: "my husband John died", "my wife and I split up", "I remarried in June"
_MODIFIER = (r"other|another|eldest|elder|oldest|youngest|younger|older|middle|little|big|baby|twin|first|second"
             r"|third|half|step|late|ex|former|new|two|three|four|five|both|\d+")
_PLURAL = {**{f"{w}s": r for w, r in RELATIONS.items() if not w.endswith("-law")},
           **{w.replace("-in-law", "s-in-law"): r for w, r in RELATIONS.items() if w.endswith("-in-law")}}
_PLURALS = "|".join(sorted((re.escape(w) for w in _PLURAL), key=lambda w: (-len(w), w)))
_SEVERAL = re.compile(rf"\b(?:{_MODIFIER})[\s-]+({_WORDS})s?(?![\w-])"
                      rf"|\b(?:my|our)\s+(?:[\w-]+\s+)?({_PLURALS})\b", re.IGNORECASE)
# children or siblings told of together ("we have two boys", "the girls are both down with", "the
# kids", "Aoife's little sister", "my 3 year old daughter", "the youngest of four girls", "one of three")
_CHILDREN_TOGETHER = re.compile(r"\b(?:two|three|four|five|both|\d+|the|our|my)\s+"
                                r"(?:(?:little|young|older|younger)\s+)?"
                                r"(?:kids|children|boys|girls|lads|lasses|grandkids|twins)\b"
                                r"|\b\d+[\s-]*(?:year|yr|month)s?[\s-]*old\s+(?:daughter|son)\b"
                                r"|\b(?:a|an)\s+\d+\s*(?:yo|y/o|yr\s+old)\b"
                                r"|['’]s\s+(?:(?:little|big|baby|older|younger|twin)\s+)?(?:sister|brother)\b"
                                r"|\b(?:new\s?born|pregnant|expecting|due\s+date|weeks\s+pregnant|arrived\s+at)\b",
                                re.IGNORECASE)
# another one told with "also", "too" or "as well": "I've also got a son from my first marriage", "I
# have a daughter too", "got a 13yo as well"
_ALSO_ONE = re.compile(r"\b(?:also|too)\b[^.!?\n]{0,20}?\b(?:have|has|got|'ve)\s+(?:a|an)\s+(?:[\w-]+\s+)?"
                       r"(son|daughter|boy|girl|brother|sister|kid|child)\b"
                       r"|\b(?:have|has|got|'ve)\s+(?:a|an)\s+(?:[\w-]+\s+)?(son|daughter|boy|girl|brother|sister|kid"
                       r"|child)\b[^.!?\n]{0,40}?\b(?:too|as well|also)\b", re.IGNORECASE)
_SIBLINGS_TOGETHER = re.compile(r"\b(?:youngest|eldest|oldest|middle)\s+of\s+(?:two|three|four|five|six|\d+)\b"
                                r"|\bone\s+of\s+(?:two|three|four|five|six|\d+)\s+(?:sisters|brothers|siblings)\b"
                                r"|\b(?:two|three|four|five|six|\d+)\s+of\s+us\s+"
                                r"(?:girls|boys|sisters|brothers|kids|siblings)\b",
                                re.IGNORECASE)
_ORDER = r"youngest|eldest|oldest|middle|second|other|younger|older|last"  # not "my little one": one child, maybe
_CHILD_OF_SEVERAL = re.compile(r"\b(?:my|our)\s+(?:youngest|eldest|oldest|middle|second|first|other)\b(?!\s+\w+)"
                               rf"|\b(?:my|our)\s+(?:{_ORDER})[\s-]+"
                               r"(?:lad|boy|girl|one|kid|child|little one|wee one|born)s?\b"
                               r"|\b(?:second|third|another|new)\s+"
                               r"(?:baby|bub|wee (?:boy|girl|one)|little (?:boy|girl))\b"
                               r"|\banother\s+(?:wee\s+|little\s+|baby\s+)?(?:boy|girl)\b"
                               r"|\b(?:my|our)\s+(?:youngest|eldest|oldest|middle|second|other)\s*,", re.IGNORECASE)
_GRANDPARENT_BY_CHAIN = re.compile(r"\b(?:my|our)\s+(?:mum|mom|mother|mam|dad|father)['’]s\s+"
                                   r"(?:mum|mom|mother|mam|dad|father|side|parents)\b", re.IGNORECASE)
_GRANDPARENTS = frozenset({"nan", "nana", "nanna", "gran", "granny", "grandma", "grandmother", "grandad", "granddad",
                           "grandpa", "grandfather"})
_DIED = re.compile(r"\b(?:died|passed|passing|funeral|lost my|widow\w*|would have been|stillborn|miscarr\w*)\b",
                   re.IGNORECASE)
_PARTED = re.compile(r"\b(?:divorc\w*|split up|separated|broke up|remarried|remarry\w*|moved out|left me"
                    r"|no longer together|married again|got married|honeymoon|wedding|my ex)\b", re.IGNORECASE)
_OF_MINE = re.compile(rf"\b(?:my|our)\s+({_WORDS})(?![\w-])", re.IGNORECASE)
_SENTENCE = re.compile(r"[^.!?\n]+")
_FEMALE = frozenset({"mother", "stepmother", "sister", "daughter", "wife", "stepdaughter", "sister-in-law",
                     "mother-in-law", "daughter-in-law", "nan", "nana", "nanna", "gran", "granny", "grandma",
                     "grandmother"})

_SQL_WORDS = "|".join(sorted(RELATIONS, key=lambda w: (-len(w), w)))
SQL_PATTERN = (rf"\m(my|our)\s+([[:alnum:]-]+\s+)?({_SQL_WORDS})|\m({_MODIFIER})[\s-]+({_SQL_WORDS})"
               rf"|\m({_SQL_WORDS})\s*\("
               r"|\m(my|our)\s+(youngest|eldest|oldest|middle|second|other)\M"
               r"|\m(my|our)\s+(youngest|eldest|oldest|middle|second|other|younger|older|last)[\s-]+"
               r"(lad|boy|girl|one|kid|child|born)"
               r"|\m(second|third|another|new)\s+(baby|bub|wee|little|boy|girl)"
               r"|\m(my|our)\s+(mum|mom|mother|mam|dad|father)'s\s+(mum|mom|mother|mam|dad|father|side|parents)\M"
               r"|\m(two|three|four|five|both|\d+|the|our|my)\s+((little|young|older|younger)\s+)?"
               r"(kids|children|boys|girls|lads|lasses|grandkids|twins)\M|\m\d+[\s-]*(year|yr|month)s?[\s-]*old"
               r"|\m(a|an)\s+\d+\s*(yo|y/o)\M"
               r"|\m(have|has|got|'ve)\s+(a|an)\s+([[:alnum:]-]+\s+)?(son|daughter|boy|girl|brother|sister|kid|child)\M"
               r"|'s\s+((little|big|baby|older|younger|twin)\s+)?(sister|brother)\M"
               r"|\m(new\s?born|pregnant|expecting|due date|arrived at|would have been|stillborn|miscarr)"
               r"|\m(youngest|eldest|oldest|middle|one)\s+of\s+"
               r"|\mof\s+us\s+(girls|boys|sisters|brothers|kids|siblings)\M"
               r"|\m(moved out|left me|no longer together|married again|got married|honeymoon|wedding|my ex)\M"
               r"|\m(divorc|split up|separated|broke up|remarr|died|passed|lost my|widow)")
"""The texts that may name a relative or tell of several, as a PostgreSQL regular expression read
without case (``store.reads.context`` reads the user's units that match it; ``relatives`` then
reads them)."""


def relation_of(word: str) -> str | None:
    """The relation a word names ("Mum" → "mother"), else None."""
    return RELATIONS.get(word.lower().replace("’", "'"))


def _own_words(text: str) -> str:
    """``text`` without what it quotes or gives after a colon: someone else's words ('She texted: "my
    son Rory has chickenpox"', "Mel: My son Rory started school"); a label's colon gives the user's
    own ("Update: my daughter's settling in")."""
    return _QUOTED.sub(" ", _LABEL.sub(" ", text))


def is_label(text: str) -> bool:
    """``text`` is a line's opening label and its colon ("Update:", "Quick question:", "PS:"): what
    follows is the user's own words, not someone else's."""
    return _LABEL.fullmatch(text.strip()) is not None


def _fits(relation: str, name: str) -> bool:
    """The name's usual pronoun, when the lists know it, is the relation's ("my mum Dave" is no name)."""
    gender = listed_gender(name)
    return gender is None or gender == "n" or (gender == "f") == (relation in _FEMALE)


def named_relatives(text: str) -> list[tuple[str, str]]:
    """``(relation, name)`` for each relative ``text`` names beside the user's relation, in the user's
    own words (not a quotation, not after a colon), the name a given name of the lists that fits the
    relation's pronoun (``names.is_listed_name``: "Sadly, my dad …" names no one): "my daughter
    Aoife" → ``("daughter", "Aoife")``; "My dad, Tom, is at Oakfield" → ``("father", "Tom")``; "Aoife,
    my daughter, loves maths"; "Niamh is my daughter", "my daughter's name is Niamh". A second
    capitalised word is part of the name ("my sister Priya Shah"). Not after a verb ("I told my mum
    Dave had left"), not the subject of a clause after a preposition ("Just heard from my mum Sarah's
    pregnant"), not a clause or a list after a comma ("Apart from my dad, Tom is …", "with my mum,
    Sarah and Jo", "Sarah, my mum, and my sister"), not someone's relation ("Aoife, my daughter's
    friend"), not "my mother in law"."""
    text = _own_words(text)
    out = []
    for m in _NAMED.finditer(text):
        relation, first, last = RELATIONS[m.group(1).lower()], m.group(3), m.group(4)
        surname = (last is not None and last not in _NOT_A_SURNAME and relation_of(last) is None
                   and not last.isupper())  # "my daughter Chloe PSLE this year": an exam, no surname
        end = m.end() if surname else m.end(3)
        starts = _STARTS.search(text, 0, m.start()) is not None
        if (_OPENS.search(text, 0, m.start()) and is_listed_name(first) and _fits(relation, first)
                and (starts or not _VERB_NEXT.match(text, end)) and not _AND_NAME.match(text, end)
                and (not m.group(2) or _CLOSED.match(text, end))):
            out.append((relation, f"{first} {last}" if surname else first))
    for m in _NAMED_BEFORE.finditer(text):
        relation = RELATIONS[m.group(2).lower()]
        if is_listed_name(m.group(1)) and _fits(relation, m.group(1)):
            out.append((relation, m.group(1)))
    for m in _BRACKETED.finditer(text):
        relation, name, before = RELATIONS[m.group(1).lower()], m.group(2), text[:m.start()].split()
        own = bool(before) and before[-1].lower() in ("my", "our")
        bare = m.group(1)[0].isupper() and not (
            before and (before[-1].lower() in _NOT_OURS or before[-1][-2:] in _OWNED))
        if (own or bare) and is_listed_name(name) and _fits(relation, name):
            out.append((relation, name))  # "a card for Mum (Margaret)", "my stepdad (Gary)"
    for m in (*_IS_MY.finditer(text), *_NAME_IS.finditer(text)):
        name, word = (m.group(1), m.group(2)) if m.re is _IS_MY else (m.group(2), m.group(1))
        relation = RELATIONS[word.lower()]
        if is_listed_name(name) and _fits(relation, name):
            out.append((relation, name))
    return out


def several(text: str) -> set[str]:
    """The relations ``text`` says the user has more than one of, or had ("my daughters", "my other
    daughter", "my youngest daughter", "three brothers", "2 daughters", "another daughter", "my
    youngest, Niamh" — a child —, "my late husband", "my ex-wife"), or whose tie it says ended ("My
    husband John died in 2019", "I lost my wife", and for a spouse any divorce, separation or second
    marriage: "Claire and I split up", "I remarried in June"): no one of memory is clearly meant."""
    found = {RELATIONS[m.group(1).lower()] if m.group(1) else _PLURAL[m.group(2).lower()]
             for m in _SEVERAL.finditer(text)}
    if _CHILD_OF_SEVERAL.search(text) or _CHILDREN_TOGETHER.search(text):
        found |= {"daughter", "son"}
    if _SIBLINGS_TOGETHER.search(text):
        found |= {"sister", "brother"}
    for m in _ALSO_ONE.finditer(text):
        word = (m.group(1) or m.group(2)).lower()
        found |= {"sister", "brother"} if word in ("brother", "sister") else {"daughter", "son"}
    if _GRANDPARENT_BY_CHAIN.search(text):  # "my dad's mother": one of two grandmothers
        found |= _GRANDPARENTS
    if _PARTED.search(text):
        found |= {"wife", "husband"}
    for sentence in _SENTENCE.findall(text):
        if _DIED.search(sentence):
            found |= {RELATIONS[m.group(1).lower()] for m in _OF_MINE.finditer(sentence)}
    return found


def _gone(text: str) -> set[str]:
    """The given names of the sentences that tell of a death ("Claire passed in 2019"): a relative
    of that name is no one's now."""
    return {w for sentence in _SENTENCE.findall(text) if _DIED.search(sentence)
            for w in re.findall(_NAME, sentence) if is_listed_name(w)}


def relatives(texts: Iterable[str]) -> dict[str, str | None]:
    """Relation → name, for the relations ``texts`` name; None for one they name two people by ("my
    brother Sam" and "my brother Kofi": neither is clearly meant), say there are or were several of
    (``several``), or whose person a text says died; "my sister Priya" and "my sister Priya Shah"
    are one."""
    found: dict[str, set[str]] = {}
    unclear: set[str] = set()
    gone: set[str] = set()
    for text in texts:
        for relation, name in named_relatives(text):
            found.setdefault(relation, set()).add(name)
        unclear |= several(text)
        gone |= _gone(text)
    out: dict[str, str | None] = {
        relation: min(names, key=len) if len(firsts := {n.split()[0] for n in names}) == 1 and not firsts & gone
        else None for relation, names in found.items()}
    return out | dict.fromkeys(unclear)


def merged_relatives(*maps: Mapping[str, str | None]) -> dict[str, str | None]:
    """``relatives`` of several sources as one: a relation they name differently, or one says is
    unclear, is no one's."""
    out: dict[str, str | None] = {}
    for found in maps:
        for relation, name in found.items():
            known = out.get(relation, name)
            out[relation] = name if relation not in out or known and name and known.split()[0] == name.split()[0] \
                else None
    return out


# a message that carries someone else's words across its sentences: text after a colon, or a
# quotation with a sentence end inside ("polish this speech: 'When I started … My son taught me …'")
_PASTED = re.compile(r"(?<!\d):(?!\d)\s*\S|[\"“‘][^\"”’]*[.!?]\s+[^\"”’]*[\"”’]"
                     r"|(?<!\w)'[^']*[.!?]\s+[^']*'(?!\w)")


def pastes(text: str) -> bool:
    """``text`` gives someone else's words beside the user's (after a colon that ends no label, or a
    quotation of more than one sentence): coreference writes no relative's name anywhere in it."""
    return _PASTED.search(_LABEL.sub(" ", text)) is not None


def mentions_relative(text: str) -> bool:
    """``text`` names a relative by the relation ("my daughter", "our son", "Mum's"): memory may say who."""
    return _SAID.search(text) is not None
