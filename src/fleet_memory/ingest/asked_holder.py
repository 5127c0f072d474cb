"""Is a later statement the asked holder's new value? The test recall's ``newer_leads`` asks of a
present question's two best answers when they are not close in relevance (``recall.current``):
``LaterValue``.

Both answers were found for the question, so the question names the attribute; it also names the
holder: the first person ("Where do I live?", "Who is my GP?") is the user, a capitalised name
("Where does Priya live?", "What does Biscuit eat?") that person or pet, a role the user owns
("Where does my sister live?") that person ("I moved to Leeds" is no answer). The newer statement is
a later value when nothing in the older statement or in any statement of the newer message says it
is not one (``change_rule.may_update``: a question that weighs a value, an addition, a stay elsewhere
— "Covering nights for Dave this week" beside "How do I sleep during the day?" —, the same value
again, another phone or e-mail) and its subject does not hand the fact to somebody the question does
not ask about:

- another person: a name tagged PERSON ("Marcus's brother Jamie works at KPMG." asked "Where
  does Marcus work?"), a person's role ("My brother Dan lives in Peckham"), "he" or "she" when
  the question asks about the user; a role said to be someone ("Helen's manager is the CTO") is
  its owner's attribute, as "My dentist is Dr Hale" is the user's;
- something possessed by somebody else ("My neighbour's dog gets raw food" asked "What does Rolo
  eat?"; "My son Noah's paediatrician is Dr Silva" asked "Who is my GP?": the parser makes "son"
  the subject and "Noah's paediatrician" its apposition, which is what the sentence is about);

unless the statement names the asked person outside such a possessor ("We moved Mateo to
Brookside Montessori" asked "What school does Mateo attend?"). What is not evidence of another
holder: a subject that is a thing or an organisation — that is the value ("ING pays my salary in
now" asked "Which bank is my everyday account with?") —, a role without an owner ("The vet put
Biscuit on a diet"), and, for a question asking "who", a name or "he"/"she" without an owner: the
person asked for is the subject of their own sentence ("Luis at Kings Cross Barbers has got my
hair sorted" asked "Who is my barber?").

Unless the question marks the present ("now", "these days": the user says the value may have
changed), the newer statement must also give a value of the kind asked for (``states_asked_kind``):
a date for "when", a person or an organisation for "who", a named value for "what" / "which" —
for "what is it called", a name given to the thing asked (``_names_the_thing``). Two
statements one person made about the same thing are close in meaning without being two values of
one attribute: "Note to self: Ines's birthday is 9 August." for "What is Ines allergic to?", "The
wifi password changed" for "Who is my broadband provider?", "Passport renewal sent off" for "When
does my passport expire?" — the newer ranks second for the holder's name or the topic's word, and
gives no value of the kind asked.

Counter-examples it does not catch (the margins of ``newer_leads`` do not either): a visit told
without a cue word ("Went to see the Knicks play at Madison Square Garden on holiday" after "I'm a
Celtics fan"), a second account opened without "also" or "another", a plan that went ahead ("Sent
out the invitations for the 20 September wedding"), a statement on the same topic that happens to
name something ("Picked up a new frying pan from Lakeland" for "What hob do we have?"). Each costs
the right answer one rank, at the second place; a change that is not followed costs the same.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import replace

from ..language.dates import DAY_NAMES
from ..language.months import MONTH_NAMES
from ..model import MemoryUnit
from ..providers.nlp import NLP, Parsed, Token
from .edited_parse import sentence_start
from .genders import SERVICE_ROLES, is_person_role
from .names import is_listed_name
from .change_rule import (FIRST_PERSON, SELF, SUBJECT_DEPS, Fact, copular, indefinite, may_update, speaker_key,
                          subject_keys)
from .statements import is_question, stated

__all__ = ["LaterValue", "asked_holders", "about_asked_holder", "names_asked_holder", "states_asked_kind"]

OTHER = "\x1fsomeone else"  # "he" / "she" in a statement, for a question about the user
_THIRD_PERSON = frozenset({"he", "she", "him", "her", "they", "them"})
_WORD = re.compile(r"[^\W\d_][\w'’-]*")
_APOSTROPHE = re.compile(r"['’]")
_WHO = re.compile(r"^\s*who(m|se)?\b", re.IGNORECASE)
_WHAT = re.compile(r"(what|which)\b")
_EVENT = re.compile(r"what\s+(happened|happens|went)\b")
_HOW_MUCH = re.compile(r"how\s+(much|many)\b")
_ASKS_NAME = re.compile(r"\b(called|named|name|go(es)? by)\b")
_NAMING = re.compile(r"\b(call(ed|s)?|nam(e|ed|es)|renam\w*|rebrand\w*|go(es)? by|known as)\b", re.IGNORECASE)
_THING = re.compile(r"(\w+)(?:'s|’s)?\s+(?:(?:is|are)\s+)?(?:called|named|go(?:es)? by)\b"  # "my podcast called"
                    r"|name of [\w\s']*?(\w+)\s*\??$")  # "the name of the black kitten"
_WHEN_LABELS = frozenset({"DATE", "TIME"})
_WHO_LABELS = frozenset({"PERSON", "ORG"})
_CALENDAR = re.compile(rf"\b({'|'.join(MONTH_NAMES + DAY_NAMES)})s?\b"
                       r"|\b\d{1,2}[:.]\d\d\b|\b\d{1,2}\s*[ap]\.?m\b|\b(noon|midday|midnight)\b", re.IGNORECASE)


def _base(word: str) -> str:
    """The word before an apostrophe: "Kofi's" → "Kofi", "I'm" → "I"."""
    return _APOSTROPHE.split(word, maxsplit=1)[0]


@functools.lru_cache(maxsize=1_024)  # read for both answers and each statement of a question
def asked_holders(question: str) -> frozenset[str]:
    """Whom the question asks about: ``SELF`` for a first-person word, and each capitalised word
    after the first, lower-cased ("Where does Priya live?" → {"priya"}). "My" or "our" before a
    person's role asks about that person, not the user ("Where does my sister live?" → the role's
    key as a statement's subject gives it, "self:sister", and the role word, which a statement may
    use as a name: "Dad's settled into his flat"), unless the question asks who or what the role
    is ("Who is my dentist?": the user's own attribute, ``_IDENTITY``)."""
    asked = set()
    words = _WORD.findall(question)
    identity = _IDENTITY.match(question) is not None
    for i, word in enumerate(words):
        base = _base(word)
        low = base.lower()
        role = _role_after(words, i) if low in ("my", "our") and not identity else None
        if role is not None:
            asked |= {role[0], role[1]}
        elif low in FIRST_PERSON:
            asked.add(SELF)
        elif i > 0 and base[:1].isupper():
            asked.add(low)
    return frozenset(asked)


# "Who is my dentist?", "What's my manager called?": the role is what is asked for
_IDENTITY = re.compile(r"^\s*(who|what)(?:'s|’s|\s+is|\s+are|\s+was)\s+(?:my|our)\s+"
                       r"(?:(?:current|new|usual|regular|main|local|family|present)\s+)?[\w-]+"
                       r"(?:['’]s\s+name|\s+called|\s+named)?"
                       r"(?:\s+(?:now|currently|nowadays|these days|at the moment|at present|again))?\s*\??\s*$",
                       re.IGNORECASE)


def _role_after(words: Sequence[str], i: int) -> tuple[str, str] | None:
    """The person a possessive at ``i`` names by a role one or two words on ("my older sister"), as
    a statement's subject keys them, and the role word: ("self:sister", "sister"); the role of
    that person's role ("my sister's husband": ("sister:husband", "husband")) when it follows."""
    at = next((j for j in range(i + 1, min(i + 3, len(words))) if _a_role(_base(words[j]).lower())), None)
    if at is None:
        return None
    owner, role = SELF, _base(words[at]).lower()
    while at + 1 < len(words) and _APOSTROPHE.search(words[at]) and _a_role(_base(words[at + 1]).lower()):
        owner, role, at = role, _base(words[at + 1]).lower(), at + 1
    return f"{owner}:{role}", role


def _a_role(word: str) -> bool:
    """A word only a person is called by, or a service's ("my brother", "the vet", "our hygienist")."""
    return is_person_role(word) or word in SERVICE_ROLES


def _persons(parsed: Parsed) -> frozenset[str]:
    """The words of the statement's persons; a sentence's first word alone is one only when it is a
    given name or a person's role ("Mum's moved to Leeds"): the small model calls a capitalised
    first word a person ("Keys collected, first night in the Portobello house", "Switch is done")."""
    tokens = parsed.tokens
    return frozenset(w.lower() for e in parsed.ents if e.label == "PERSON" and not (
        e.end - e.start == 1 and sentence_start(tokens, e.start) == e.start
        and not (is_listed_name(e.text) or _a_role(e.text.lower()))) for w in e.text.split())


def _owner(token: Token) -> str:
    word = _base(token.text).lower()
    return SELF if word in FIRST_PERSON else word


def _subject_holders(parsed: Parsed, asked: frozenset[str], asks_who: bool) -> set[str]:
    """Who the statement's subjects say holds its fact (the module docstring); empty: no evidence."""
    tokens, persons = parsed.tokens, _persons(parsed)
    held: set[str] = set()
    for i, t in enumerate(tokens):
        if t.dep not in SUBJECT_DEPS or indefinite(tokens, i):
            continue
        at = _owned_apposition(tokens, i)  # "My son Noah's paediatrician is Dr Silva": Noah's paediatrician
        word = tokens[at].text.lower()
        kids = [k for j, k in enumerate(tokens) if k.head == at and j != at]
        owners = [k for k in kids if k.dep == "poss"]
        names = {k.text.lower() for k in kids if k.dep in ("appos", "compound") and k.pos == "PROPN"}
        if word in FIRST_PERSON:
            held.add(SELF)
        elif word in _THIRD_PERSON:
            if not asks_who and asked == {SELF}:
                held.add(OTHER)
        elif owners:
            owner = _owner(owners[0])
            if asks_who and owner in asked or _a_role(word) and not names and copular(tokens, t.head):
                held.add(owner)  # "Our landlord Pete …" asked "Who is our landlord?"; "My dentist is Dr Hale"
            elif word in persons:
                held |= {word} | names
            elif _a_role(word):
                held |= names or {f"{owner}:{word}"}
            else:
                held |= {owner} | {k.text.lower() for k in kids if k.dep == "appos" and k.pos == "PROPN"}
        elif word in persons and not asks_who:
            held |= {word} | names
    return held


def _owned_apposition(tokens: Sequence[Token], i: int) -> int:
    """The subject ``i``, or its apposition when that has an owner of its own: the parser reads "My
    son Noah's paediatrician" as "son", with "Noah's paediatrician" beside it, and the paediatrician
    is what the sentence is about."""
    for j, k in enumerate(tokens):
        if k.head == i and j != i and k.dep == "appos" and any(
                g.head == j and g.dep == "poss" and n != j for n, g in enumerate(tokens)):
            return j
    return i


def _names_asked(parsed: Parsed, names: frozenset[str]) -> bool:
    """The statement names an asked person, not only as the owner of another person ("Marcus's
    brother Jamie")."""
    tokens, persons = parsed.tokens, _persons(parsed)

    def owns_a_person(t: Token) -> bool:
        head = tokens[t.head].text.lower()
        return t.dep == "poss" and (_a_role(head) or head in persons)

    return any(_base(t.text).lower() in names and not owns_a_person(t) for t in tokens)


def about_asked_holder(question: str, parsed: Parsed) -> bool:
    """Does the statement (``parsed``) leave the fact with whom ``question`` asks about? True when
    the question names no one."""
    asked = asked_holders(question)
    if not asked:
        return True
    held = _subject_holders(parsed, asked, _WHO.match(question) is not None)
    return not held or bool(held & asked) or _names_asked(parsed, asked - {SELF})


def names_asked_holder(question: str, parsed: Parsed) -> bool:
    """The statement names whom the question asks about: the asked person's name, or for a question
    about the user a first-person word or a main verb without a subject ("Started at Monzo")."""
    asked = asked_holders(question)
    words = {_base(t.text).lower() for t in parsed.tokens}
    if words & (asked - {SELF}):
        return True
    return SELF in asked and bool(words & FIRST_PERSON or SELF in subject_keys(parsed)[0])


def states_asked_kind(question: str, older: Fact, newer: Fact) -> bool:
    """Does ``newer`` give a value of the kind the question asks for, one ``older`` does not name?
    "When" a date or a time (an entity, a month, a weekday or a clock time), "who" a name (a person
    or an organisation), "where" and "what" / "which" a named value, a number or anything with a
    digit (``_values``), "how much" / "how many" a number. A question about an event or a manner ("What
    happened …?", "Why …?", "How …?") asks for no attribute's value. The asked holder's own name is
    no value ("Note to self: Ines's birthday is 9 August." names none for "What is Ines allergic
    to?"), nor is the older statement's value said again ("Luca and I celebrated three years
    together" after "My boyfriend is Luca")."""
    asked = question.strip().lower()
    holders = asked_holders(question)
    if asked.startswith("when"):
        return any(e.label in _WHEN_LABELS for e in newer.parsed.ents) or _CALENDAR.search(newer.text) is not None
    if _HOW_MUCH.match(asked):
        return any(t.pos == "NUM" or any(c.isdigit() for c in t.text) for t in newer.parsed.tokens)
    who = _WHO.match(asked) is not None
    if not (who or asked.startswith("where") or _WHAT.match(asked) is not None and _EVENT.match(asked) is None):
        return False
    said = {_base(w).lower() for w in _WORD.findall(older.text)}
    if not _values(newer, holders, names_only=who) - said:
        return False
    return _names_the_thing(asked, newer.text) if _ASKS_NAME.search(asked) else True


def _values(fact: Fact, holders: frozenset[str], names_only: bool) -> set[str]:
    """The values named in the statement, lower-cased: the words of a named entity (not a date or a
    time; with ``names_only`` a person or an organisation), proper nouns and capitalised words
    inside the sentence, and unless ``names_only`` numbers and anything with a digit or an @ —
    none of them the asked holder's name or a first-person word."""
    tokens, ents = fact.parsed.tokens, fact.parsed.ents
    when = {i for e in ents if e.label in _WHEN_LABELS for i in range(e.start, e.end)}
    named = {i for e in ents if (e.label in _WHO_LABELS if names_only else e.label not in _WHEN_LABELS)
             for i in range(e.start, e.end)}
    values = set()
    for i, t in enumerate(tokens):
        word = _base(t.text).lower()
        digits = any(c.isdigit() or c == "@" for c in t.text)
        if i in when or word in holders or word in FIRST_PERSON or names_only and digits:
            continue  # "maple-kettle-42" is nobody's name
        if i in named or t.pos == "PROPN" or i > 0 and t.text[:1].isupper() or not names_only and (
                t.pos == "NUM" or digits):
            values.add(word)
    return values


def _names_the_thing(question: str, text: str) -> bool:
    """For a question asking what a thing is called: the statement gives a name (a naming word:
    "renamed", "called", "goes by") or speaks of the thing ("The podcast is Late Shift now"). A
    name said beside something else is no name of it: "got a sourdough loaf at the Levenshulme
    market" for "What's my sourdough starter called?"."""
    if _NAMING.search(text):
        return True
    thing = _THING.search(question)
    words = {w.lower() for w in _WORD.findall(text)}
    return thing is not None and any(w.startswith((thing.group(1) or thing.group(2)).lower()) for w in words)


class LaterValue:
    """``(question, older, newer, marked_present)`` → the statements of the two answers (each the units
    of one put, best ranked first) when the newer's is the asked holder's later value of what the
    older's states (the module docstring), and whether the later message, for a question that does
    not mark the present, gives a new value of the kind asked and names the asked holder
    (``names_asked_holder``: then recall asks less closeness of the two); else None. An answer's
    statement is its best unit that states a value (``statements.stated``): no question, or one that
    uses the speaker's value ("how do i stop the Framework 13 waking up in my bag?":
    ``statements.uses_a_value``); a message often asks something beside what it tells, and the
    question is the unit that repeats the question's words.
    With the present marked in the question ("now", "these days": ``marked_present``) the user says
    the value may have changed; otherwise the newer message must also give, in any of its
    statements, a value of the kind asked for that the older message names nowhere
    (``states_asked_kind``: "Passport renewal sent off" names no date for "When does my passport
    expire?"; "The Virgin Media contract is cancelled. Hyperoptic put the fibre in on Tuesday."
    names a provider). Parses through ``nlp`` (the ingestor's kept parses: the units of recent puts
    are parsed already)."""

    def __init__(self, nlp: NLP) -> None:
        self.nlp = nlp

    def __call__(self, question: str, older: Sequence[MemoryUnit], newer: Sequence[MemoryUnit],
                 marked_present: bool) -> tuple[MemoryUnit, MemoryUnit, bool] | None:
        olds, news = self._statements(older, newer)
        if not olds or not news:
            return None
        old, new = olds[0], news[0]
        # what the later message tells vetoes, not what it asks ("Will the old links still redirect?")
        vetoes = [f for f in news if not is_question(f.text)] or [new]
        if not (all(may_update(old, f, in_passing=True) for f in vetoes) and about_asked_holder(question, old.parsed)
                and about_asked_holder(question, new.parsed)):
            return None
        told = replace(old, text=" ".join(f.text for f in olds))  # every value the older message names
        valued = any(states_asked_kind(question, told, f) for f in news)
        if not (marked_present or valued):
            return None
        return _unit(older, old), _unit(newer, new), not marked_present and valued and any(
            names_asked_holder(question, f.parsed) for f in news)

    def _statements(self, *answers: Sequence[MemoryUnit]) -> list[list[Fact]]:
        """Per answer, its units that state something, in rank order: no question, or a question that
        uses the speaker's value (``statements.uses_a_value``); every text parsed in one call."""
        said = [[u for u in units if stated(u.text, in_passing=True)] for units in answers]
        if not all(said):  # nothing to compare: no parse
            return [[] for _ in answers]
        parsed = iter(self.nlp.parse([u.text for units in said for u in units]))
        return [[_fact(u, next(parsed)) for u in units] for units in said]


def _unit(units: Sequence[MemoryUnit], fact: Fact) -> MemoryUnit:
    return next(u for u in units if u.id == fact.id)


def _fact(unit: MemoryUnit, parsed: Parsed) -> Fact:
    return Fact(unit.id, unit.text, unit.event_date, parsed, speaker_key(unit.user_id, unit.speaker))
