"""Supersession: when does a newer unit state the current value of what an older unit stated?

The offline rule (no model call beyond the spaCy parse the pipeline already uses and one call of its
embedder for the masked texts of 4c). A pair of units
of one agent, ``older`` (earlier event time) and ``newer``, is a supersession when all of these hold
(precision first: when a signal disagrees there is no link — a wrong link costs more than a missing one):

1. **Close enough** — cosine similarity ≥ ``IngestConfig.supersede_min_similarity`` (0.3; the cheap
   filter, ``store.tables.supersession.similar_units``, top ``supersede_candidates`` per new unit, unarchived
   units: in SQL, or in memory from the agent's held embeddings, the same candidates either way).
   A candidate that was superseded already stands for its line of versions: when the pair holds,
   the new unit supersedes the line's current version (if that is older than the new unit). A new
   value often resembles an older version more than the current one: "Started at the new clinic
   today as a senior analyst." is 0.37 close to "I'm a data analyst at Harlow Logistics." but
   0.23 to its successor "Handed in my notice at Harlow Logistics today.".
2. **Not a question, and the same holder** — a question states no value (``is_question``); the
   holder keys (``subject_keys``) of the two parses intersect: the grammatical subjects
   (``nsubj``/``nsubjpass``) with their compounds, lower-cased; a first-person subject, or a
   sentence whose main verb has no subject ("Moved into the new flat"), is ``self`` — the self of
   the unit's user and speaker (``speaker_key``: user u1's "I live in Leeds" and user u2's "I live
   in Manchester" are two people's homes). A possessed subject is its owner's attribute when it is a
   slot noun or the verb is a copula ("my number is …", "Omar's boss is Janet" → ``self``,
   ``omar``), and a holder of its own otherwise: "my sister Priya lives in Bristol" → ``priya``,
   ``sister``, ``self:sister`` — never ``self``, so the user's own move does not end the sister's
   home. For plans the objects of the verbs count too ("moved the wedding") and ``self`` alone
   does not match (two things I booked are two plans). Two different proper-noun subjects veto.
3. **Not something else than a change** — the newer text carries no cue of an addition ("also",
   "another", "second", "as well", "added", "a cat too" — not "too loud"), a stay elsewhere
   ("visited", "trip", "while I was", "on holiday", "back from a week …", "a locum", "a day pass"
   — not once the plan is cancelled, called off or postponed: "Cancelled the Kyoto trip" ends the
   booking), or the same value again ("still", "confirmed", "as usual", "again" — not beside
   changed/switched/moved: "Tomasz changed his number again"): ``statements.not_a_change``.
   Nor is another value of a phone, an e-mail or a password that the newer text qualifies in a way
   the older does not — a modifier of the noun or a purpose ("My mobile is …" / "My work phone is
   …"; "My personal email is …" / "For work, use …"): people hold several at once
   (``_another_value``; "New phone number: …" after "My mobile number is …" qualifies nothing).
   The vetoes of 2 and 3 alone are ``may_update``, which recall reads too (``ingest.asked_holder``).
4. **The same attribute**, by one of three signals:

   a. a shared predicate slot (``SLOTS``: the few relations whose wordings share no word — living
      in / moving to, working at / joining or leaving a named employer ("joined Ledgerly", not
      "joined a travel club"; "left Deloitte", not "won't quit") / handing in notice, a manager, a
      phone-shaped number, an e-mail address, a plan's date or status, a name). A plan's holder is
      its own keys, the objects counting ("moved the wedding" ← "The wedding is set for …");
      another slot needs the same holder or the same owner of the slot's noun ("My manager
      Oluwaseun wants …" names the user's manager, as "My new manager is Nkechi" does:
      ``_slot_owners``);
   b. the relation words: ``relation_words`` — the content words left once the values are masked
      (proper names, numbers, named entities), light verbs, time words and change cues taken out
      — overlapping by half or more of the smaller set;
   c. the masked texts: the cosine of the two units' embeddings once the values are masked
      (``masked_text``: named entities, proper nouns, numbers, anything with a digit or an @
      become "X"; time words and change cues go) is at least ``MASKED_SIMILARITY`` (0.7), the
      newer text states no slot the older does not, and each text names a value beyond its holder
      (``states_value``: the signal compares two values in one frame, and two texts that name none
      compare only their wording). "I drive a Honda Civic." / "Driving a Mazda 3 since May." share
      no content word; masked, "I drive a X ." / "Driving a X ." stand at 0.87; "Omar is so
      thrilled about it!" / "Omar is really excited about it now!" stand at 0.91 and name no value.
      Needs the embedder the Ingestor passes (``supersede_put(..., embedder=)``, the vectors of
      masked texts kept between puts: ``ingest.kept``); without one the signal is off.

   b and c link only with the same holder AND a change cue in the newer text (``statements.CHANGE_CUES``: now,
   new, moved, switched, changed, renamed, instead, no longer, cancelled, any more, actually, since,
   …): two statements about one's dentist may both hold. A cue counts as chat uses it to say
   something changed (``_change_cued``): not a negated verb ("won't quit", "not going to move"), not
   "since" opening a clause ("since we last talked": the time since an event), and "new" only on what
   both texts are about ("a new dentist" after "my dentist", not "new book recommendations" after
   "fantasy books"). For b and c the holder is also the same when both texts, of one user and
   speaker, name nobody but the speaker (``_only_self``: no proper-noun subject, no one else's
   possessed noun, no he/she/they, no PERSON entity, no capitalised subject without a determiner, no
   subject that names no one — "you", "it", "that": "It was an amazing experience" / "It was actually
   a moving experience" are nobody's attribute; on LoCoMo this took away 24 of the 94 pairs the
   relation words linked, none of them a change; an indefinite subject, "a lot", "something", holds
   nothing either): "The letting agent for our flat is Foxtons." and "Our letting agent is Hamptons
   now." share no subject key; "Grandma does the school pick-up" (a name the tagger reads as a noun)
   is someone else's. A request that gives no slot's value ("Let Tim know if you need more
   suggestions", ``_asks``) states nothing. A cheap test before any parse (``_may_relate``) keeps a
   candidate when the two texts share a slot or the newer has a change cue; ``may_change`` picks the
   new units worth a candidate search at all.
5. **Different times** — the later event supersedes the earlier; units with the same event time
   (one message saying a thing twice) never supersede each other.

**A self-repair** links whatever 2 to 4 say, when neither text is a question and one speaker said
both: the newer text says "not" of a value the older one names, a name or a number right after the
"not" (``denies``: "sorry, I got that wrong - my dentist is Dr Ahmed at Brightwhite Dental, not
Smile Studio" after "Dr Patel at Smile Studio, 14th at 9:30"; "it's B41 not B14"). Corrections come
in every wording and often minutes later, with no slot or cue in common with what they mend; the
denied value is what ties them. Not "not" before a value the older text never names ("Let's do
Saturday, not Friday" after a text about Tuesdays), nor before a common word ("not that bad").

How the masked threshold was chosen: on bench/changes.py's dev split, of the same-holder pairs
with a change cue and no not-a-change cue, those at 0.5 or more were all changes; but on LoCoMo
(bench/locomo.py, dev) 0.5 linked chat turns of one speaker that change nothing and cost .019 of
MRR and .014 of R@5. At 0.7 LoCoMo is back within .002 of the rule without this signal, and the
signal still finds the clearest paraphrases ("I drive a X ." / "Driving a X ." at 0.87, "My barber
is X" / "I get my hair cut at X now" at 0.71). The threshold was never looked at on the test split.
On LoCoMo's conversations, where nothing is labelled, what the rule links between one speaker's
turns is read by hand: each reading above (the value, "since", negation and "new"; an employer named
after joining, quitting or leaving; subjects that name no one, requests) was added when it took out
chat that changes nothing ("Long time no talk - a lot has been going on since then!" ending "We had
a wild few days since we talked.") and left the labelled splits' links as they were. What is left
is mostly one job loss told again and again, and chat that shares a verb ("started learning the
piano" / "learning the violin now"). Counts: docs/benchmarks.md, "Facts that change".

Examples: "Ines lives in Lisbon." (June 2024) ← "Ines moved to Porto." (Feb 2025): slot residence,
holder ``ines``. "My dentist is Dr Park." ← "I've switched to a new dentist, Smile Studio.":
relation {dentist}, cue "switched", holder ``self``. "My barber is Tony on Mill Lane." ← "I get my
hair cut at Fade Lab now.": masked 0.71, cue "now". "The offsite is set for 3 March." ← "The
offsite was cancelled.": plan, ``offsite``.

Counter-examples: "Ines visited Madrid." (a visit); "I live in Leeds." and "My brother Sam lives in
York now." (holders ``self`` and ``sam``/``self:brother``); "I'm vegetarian." and "My partner went
vegan." (another holder); "We have a cat called Miso." and "We adopted a second cat." (additive);
"The offsite is still on for 3 March." (the plan kept); "Should I move to Manchester?" (a
question); "I take the 7:15 train." and "I take sertraline." (a light verb is no relation); "I
support Everton." and "I've started learning the piano now." (masked 0.10); the marathon and the
phone number above (a slot on one side).
Known limits (the figures: docs/benchmarks.md): a change whose newer text has no change cue
("Zara's startup is named Brightloop." / "Zara's startup goes by Loopwise after the rebrand.") is
not linked by b or c; a value the parser reads as a common noun
("Celtics are my NBA team") stays in the masked text; a change whose newer text matches a slot
pattern the older does not ("I bank with Nationwide." / "I moved my current account to
Starling") is left unlinked by c; a second value qualified only in the older text ("my work phone
is …", then "the number for the kids' school is …") can link, and so can another activity of the
same holder when the relation words overlap ("five-a-side football on Mondays" / "started playing
squash on Wednesdays now").
The LLM judge covers these.

What a message tells and asks, read from its text, is ``ingest.statements``; the put's step that
finds candidates, asks the optional LLM judge and records the links is ``ingest.supersede``.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from uuid import UUID

import numpy as np

from ..providers.embedder import Embedder
from ..providers.nlp import Parsed, Token
from .statements import CHANGE_CUES, DENIED, denies, is_question, not_a_change, stated

__all__ = ["SLOTS", "Fact", "Pair", "slots", "subject_keys", "relation_words", "rule_pairs", "judge", "masked_text",
           "speaker_key", "may_update", "may_link", "may_change", "states_value", "indefinite", "copular",
           "FIRST_PERSON", "SUBJECT_DEPS", "SELF", "MASKED_SIMILARITY"]

_I = re.IGNORECASE
SLOTS: dict[str, re.Pattern[str]] = {
    "residence": re.compile(r"\b(lives?|living|lived) (in|at|on|with)\b|\bmoved (to|into|in|from)\b"
                            r"|\b(relocat\w*|settled) (to|in)\b|\b(home|flat|house|apartment) (is )?in\b", _I),
    # joining, hiring, quitting or leaving is of an employer when the employer is named after it
    "employer": re.compile(r"\bworks? (at|for|as)\b|\bworking (at|for|as)\b|\bjobs?\b|\bemployed\b|\bnotice\b"
                           r"|\bresign\w*|\bhead of\b"
                           r"|(?<!n't )(?<!not )(?<!never )\b(joined|hired by|quit|leaving|left) (?-i:[A-Z])"
                           r"|\b(is|am|'m|are) an? (\w+ ){0,3}(at|for) [A-Z]"
                           r"|\bstart\w* (working )?(at|with) [^.]*\bas an? \w+", _I),
    "manager": re.compile(r"\bmanager\b|\bboss\b|\breports? to\b|\bsupervisor\b", _I),
    # a phone word (or "number") AND phone-shaped digits: 7+ digits, single spaces/dashes/dots/brackets
    # between them ("Record number 3 ... 412 points" is no phone number). Anchored at the start (\A),
    # so the look-ahead for the word runs once, not from every position (linear in the text).
    "phone": re.compile(r"\A(?=[\s\S]*\b(phone|mobile|cell|landline|telephone|number)\b)[\s\S]*?(?<![\w,.])"
                        r"(\+|\()?\d([ ().-]?\d){6,}(?!\w|[,.]\d)", _I),
    # an address starts a word (after a space or an opening mark): one try per word, not per character
    "email": re.compile(r"\be-?mail (address )?is\b|(?<![^\s(<\[\"'])[^\s@]+@[^\s@]+\.\w+", _I),
    "password": re.compile(r"\b(password|passcode|pin|door code)\b", _I),
    "diet": re.compile(r"\b(am|'m|is|are|been|gone|went|become|became|turned|going|stay\w*) (fully |strictly |"
                       r"completely |now |mostly )?(vegan|vegetarian|pescatarian)\b|\b(vegan|vegetarian|keto|paleo|"
                       r"gluten-free) diet\b|\beats? meat\b", _I),
    "plan": re.compile(r"\b(is|are|was|'s) (set|scheduled|planned|booked|fixed) for\b|\b(is|are) on \w+day"
                       r"|\bbooked\b|\b(moved|postponed|rescheduled|cancell?ed|canceled|delayed|pushed back"
                       r"|brought forward|called off)\b|\b(is|are|'s) off\b|\bmeets? (at|on|in)\b", _I),
    "name": re.compile(r"\b(is|are|was) (called|named)\b|\brenamed\b|\bnew name\b", _I),
}
_NOUN_SLOT = {"manager": "manager", "boss": "manager", "supervisor": "manager", "number": "phone",
              "phone": "phone", "mobile": "phone", "email": "email", "password": "password", "diet": "diet",
              "job": "employer", "name": "name", "home": "residence", "flat": "residence"}
_SLOT_NOUNS = frozenset({"manager", "boss", "supervisor", "number", "phone", "mobile", "email", "address",
                         "password", "diet", "job", "name", "home", "flat", "cell", "telephone", "landline"})
FIRST_PERSON = frozenset({"i", "me", "my", "we", "us", "our", "mine", "ours", "myself"})
SUBJECT_DEPS = ("nsubj", "nsubjpass")
_PLAN_OBJECT_DEPS = ("dobj", "obj")
SELF = "self"


@functools.lru_cache(maxsize=8_192)
def slots(text: str) -> frozenset[str]:
    """The predicate slots the text states a value for (``SLOTS``); the same older units are read
    again for every new unit near them, so the answers are kept."""
    return frozenset(name for name, pattern in SLOTS.items() if pattern.search(text))


def _phrase(tokens: Sequence[Token], head: int) -> tuple[set[str], set[str]]:
    """The key words of the noun phrase headed by ``head`` and the proper names in it."""
    t = tokens[head]
    low = t.text.lower()
    if t.pos == "PRON" or low in FIRST_PERSON:
        return ({SELF} if low in FIRST_PERSON else set()), set()
    kids = [i for i, k in enumerate(tokens) if k.head == head and i != head]
    words = {low} | {tokens[i].text.lower() for i in kids if tokens[i].dep in ("compound", "flat")}
    # a person's name: the head itself, or a name beside a common noun ("my sister Priya"); a proper
    # compound of a common noun names no holder ("my Twitch username")
    name_deps = ("compound", "flat", "appos", "nsubj", "nsubjpass") if t.pos == "PROPN" else ("appos",)
    names = {tokens[i].text.lower() for i in [head, *kids] if tokens[i].pos == "PROPN" and tokens[i].dep in name_deps}
    owners = [i for i in kids if tokens[i].dep == "poss"]
    if not owners:
        return words, names
    owner = tokens[owners[0]].text.lower().removesuffix("'s").removesuffix("’s")
    owner = SELF if owner in FIRST_PERSON else owner
    if not names and (words & _SLOT_NOUNS or copular(tokens, t.head)):
        return {owner}, set()  # "my number is …", "Omar's boss is Janet": the owner's attribute
    return words | names | {f"{owner}:{low}"}, names  # "my sister (Priya) lives in …": the sister holds it


def copular(tokens: Sequence[Token], head: int) -> bool:
    """The subject's verb is a form of "be" used as the main verb ("My dentist is Dr Park")."""
    verb = tokens[head]
    return verb.pos == "AUX" and verb.dep == "ROOT"


def subject_keys(parsed: Parsed, plan: bool = False) -> tuple[frozenset[str], frozenset[str]]:
    """(subject keys, proper-noun subject heads) of one parse; see the module docstring."""
    tokens = parsed.tokens
    keys: set[str] = set()
    proper: set[str] = set()
    deps = SUBJECT_DEPS + (_PLAN_OBJECT_DEPS if plan else ())
    for i, t in enumerate(tokens):
        if t.dep in deps and not (t.dep in SUBJECT_DEPS and indefinite(tokens, i)):  # "a lot" holds nothing
            words, names = _phrase(tokens, i)
            keys |= words
            if t.dep in SUBJECT_DEPS:
                proper |= names
    roots = [i for i, t in enumerate(tokens) if t.dep == "ROOT" and t.pos in ("VERB", "AUX")]
    for r in roots:
        if not any(k.head == r and k.dep in SUBJECT_DEPS + ("expl",) for k in tokens):
            keys.add(SELF)  # "Moved into the new flat": the speaker's own statement
    if tokens and tokens[0].tag in ("VBD", "VBN") and tokens[0].dep not in SUBJECT_DEPS:
        keys.add(SELF)  # "Handed in my notice ...", whatever the parser made the root
    return frozenset(keys), frozenset(proper)


@dataclass(frozen=True, slots=True)
class Fact:
    """What the rule reads of one unit."""

    id: UUID
    text: str
    event_date: datetime
    parsed: Parsed
    who: str = ""  # whose first person "self" is: the unit's user and speaker (``speaker_key``)


def speaker_key(user_id: str | None, speaker: str | None) -> str:
    """Who "I" is in a unit: its user and its speaker (two users' "I live in Leeds" and "I live in
    Manchester" are two people's homes)."""
    return f"{user_id or ''}\x1f{speaker or ''}"


def _own(keys: frozenset[str], who: str) -> frozenset[str]:
    return frozenset(SELF + "@" + who if k == SELF else k for k in keys)


@dataclass(frozen=True, slots=True)
class Pair:
    """``older`` is superseded by ``newer``; ``reason`` says why (``rule:<slot>``, ``llm:<verdict>``)."""

    older: UUID
    newer: UUID
    reason: str


def _ordered(a: Fact, b: Fact) -> tuple[Fact, Fact] | None:
    if a.event_date == b.event_date:
        return None
    return (a, b) if a.event_date < b.event_date else (b, a)


_WORD = re.compile(r"[a-z]+(?:-[a-z]+)*")
_VALUE_CHARS = re.compile(r"[\d@]")
_MASKED_TIME = re.compile(r"now|these|days|actually|currently|nowadays|lately|recently|finally|today", _I)
# the masked texts' cosine from which a same-holder pair with a change cue is one attribute (see the
# module docstring for how it was chosen and where it is thin)
MASKED_SIMILARITY = 0.7
# verbs that carry no attribute of their own ("I take the train" / "I take sertraline")
_LIGHT = frozenset({"be", "is", "am", "are", "was", "were", "been", "have", "has", "had", "take", "takes", "took",
                    "get", "gets", "got", "go", "goes", "went", "make", "makes", "made", "do", "does", "did", "use",
                    "uses", "used", "say", "says", "said", "think", "want", "need", "like", "feel", "keep", "put",
                    "see", "give", "come", "let", "thing", "lot", "bit", "way", "time", "day", "week", "month",
                    "year", "weekend", "morning", "evening", "night", "today", "ago", "last", "next", "old", "new",
                    "great", "good", "nice", "fine", "small", "big", "long", "lovely", "favourite"})


def _stem(word: str) -> str:
    for suffix in ("ing", "ed", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


def _named(parsed: Parsed, labels: frozenset[str] | None = None) -> set[int]:
    """The token indexes inside the parse's entity spans (of ``labels`` only, when given)."""
    return {i for span in parsed.ents if labels is None or span.label in labels for i in range(span.start, span.end)}


def _value_like(tok: Token) -> bool:
    """A proper noun, a number, or anything with a digit or an @: a value, whatever its entity."""
    return tok.pos in ("PROPN", "NUM") or _VALUE_CHARS.search(tok.text) is not None


def relation_words(parsed: Parsed) -> frozenset[str]:
    """What the unit says something ABOUT, with the values masked: the content words (nouns, verbs,
    adjectives) left once proper names, numbers, named entities, light verbs, time words and change
    cues are taken out, crudely stemmed. "My dentist is Dr Park." → {dentist}; "I've switched to a
    new dentist, Smile Studio." → {dentist}."""
    tokens = parsed.tokens
    named = _named(parsed)
    out = set()
    for i, t in enumerate(tokens):
        low = t.text.lower()
        if (t.pos not in ("NOUN", "VERB", "ADJ") or i in named or not _WORD.fullmatch(low) or low in _LIGHT
                or CHANGE_CUES.fullmatch(low)):
            continue
        out.add(_stem(low))
    return frozenset(out)


def _overlap(a: frozenset[str], b: frozenset[str]) -> float:
    return len(a & b) / min(len(a), len(b)) if a and b else 0.0


def _may_relate(a: str, b: str, newer: str) -> bool:
    """The cheap test before any parse: a shared slot, or a change cue in the newer text — the rule
    links by nothing else (``judge``)."""
    return bool(slots(a) & slots(b) or CHANGE_CUES.search(newer))


def may_link(a: str, b: str, newer: str) -> bool:
    """The tests of ``judge`` that read no parse, for a pair of another event time: neither text is
    a question, and the newer denies a value the older names (``denies``) or it is not an addition,
    a stay or the same value again, and ``_may_relate``."""
    older = b if newer == a else a
    return not (is_question(a) or is_question(b)) and (
        denies(older, newer) or not not_a_change(newer) and _may_relate(a, b, newer))


def may_change(text: str) -> bool:
    """Whether a new unit is worth a candidate search for the rule: it states a slot, has a change
    cue or denies a value (``DENIED``). Searching and parsing candidates for every unit made a
    LoCoMo put's supersession about forty times slower for no link the rule could make (a unit
    dated before a stored one that carries the cue is the case this leaves out)."""
    return bool(slots(text) or CHANGE_CUES.search(text) or DENIED.search(text))


def _holders(fact: Fact) -> frozenset[str]:
    keys, _ = subject_keys(fact.parsed)
    return _own(keys, fact.who)


def _slot_owners(fact: Fact, slot: str) -> frozenset[str]:
    """Whose ``slot`` the text names by a possessed slot noun, a name beside it or not: "My manager
    Oluwaseun wants ..." names the user's manager, as "My new manager is Nkechi" does."""
    tokens = fact.parsed.tokens
    owners = set()
    for i, t in enumerate(tokens):
        if _NOUN_SLOT.get(t.text.lower()) != slot:
            continue
        for k in tokens:
            if k.head == i and k.dep == "poss":
                owner = k.text.lower().removesuffix("'s").removesuffix("’s")
                owners.add(SELF if owner in FIRST_PERSON else owner)
    return _own(frozenset(owners), fact.who)


_OTHER_PEOPLE = frozenset({"he", "she", "they", "him", "her", "his", "their", "them"})
_NOT_A_HOLDER = frozenset({"you", "it", "this", "that", "there"})
_INDEFINITE = frozenset({"something", "everything", "nothing", "anything", "someone", "everyone", "anyone",
                         "somebody", "everybody", "anybody", "nobody", "lots", "plenty"})
_INDEFINITE_DET = frozenset({"a", "an", "some", "any", "no", "every", "each"})


def _only_self(fact: Fact) -> bool:
    """The text names no holder but its speaker: no proper-noun subject, no one else's possessed noun
    ("my sister"), no third-person pronoun, no PERSON entity, no capitalised subject without a
    determiner (a name the tagger took for a noun: "Aoife is the new physio", "Grandma does the
    pick-up"), no subject that names no one (``_NOT_A_HOLDER``: "You're making a difference", "It's
    kind of fun") — "The family car is a VW Touran.", "Our landlord is Mr Hughes."."""
    tokens = fact.parsed.tokens
    keys, proper = subject_keys(fact.parsed)
    named = any(t.dep in SUBJECT_DEPS and t.text[:1].isupper() and t.pos in ("NOUN", "PROPN")
                and not any(k.head == i and k.dep in ("det", "poss") for k in tokens) for i, t in enumerate(tokens))
    unsaid = any(t.dep in SUBJECT_DEPS + ("expl",) and (t.text.lower() in _NOT_A_HOLDER or indefinite(tokens, i))
                 for i, t in enumerate(tokens))
    others = {t.text.lower() for t in tokens} & _OTHER_PEOPLE
    return not (proper or named or unsaid or others or any(":" in k for k in keys)
                or any(span.label == "PERSON" for span in fact.parsed.ents))


def _asks(fact: Fact) -> bool:
    """The text asks for something and states no slot's value: its main verb is bare and has no
    subject ("Let Tim know if you need more suggestions", "Keep going and don't give up!"; not "Use
    sam.k@outlook.com for anything personal", an instruction that gives the user's address)."""
    tokens = fact.parsed.tokens
    bare = [i for i, t in enumerate(tokens) if t.dep == "ROOT" and t.tag == "VB"]
    return not slots(fact.text) and any(not any(k.head == i and k.dep in SUBJECT_DEPS for k in tokens) for i in bare)


def indefinite(tokens: Sequence[Token], i: int) -> bool:
    """The noun phrase headed by ``i`` names no one in particular: "a lot", "some big things",
    "something", "everyone"."""
    return tokens[i].text.lower() in _INDEFINITE or any(
        k.head == i and k.dep == "det" and k.text.lower() in _INDEFINITE_DET for k in tokens)


def _change_cued(fact: Fact, about: frozenset[str]) -> bool:
    """A change cue that says the text changes something: a gerund after a preposition describes
    instead ("does not cover damage from moving the appliance" states a warranty's terms; "since
    moving, I bank with ..." still counts through "since"); "since" that opens a clause counts the
    time from an event instead ("It's been ages since we last talked"; "since May" counts); a cue
    verb that is negated says nothing changed ("Jon won't quit", "we never moved"); and "new"
    counts only on what the two units are about (``about``, the relation words they share:
    "I've switched to a new dentist" after "My dentist is Dr Park", not "always up for some new
    book recommendations" after "a lot of good books")."""
    tokens = fact.parsed.tokens
    describing = {t.text.lower() for t in tokens if t.dep == "pcomp" and t.tag == "VBG"}
    if all(t.dep == "mark" for t in tokens if t.text.lower() == "since"):
        describing.add("since")
    if not any(t.text.lower() == "new" and _stem(tokens[t.head].text.lower()) in about for t in tokens):
        describing.add("new")
    negated = {t.head for t in tokens if t.dep == "neg"}  # "won't quit", "never moved", "not going to quit"
    negated |= {i for i, t in enumerate(tokens) if t.dep == "xcomp" and t.head in negated}
    describing |= {tokens[i].text.lower() for i in negated}
    return any(m.group(0).lower() not in describing for m in CHANGE_CUES.finditer(fact.text))


def states_value(fact: Fact) -> bool:
    """The text names a value other than who holds it or when: a named entity (not a date or a
    time), a proper noun, a capitalised word inside the sentence (a name the tagger took for a noun:
    "Our letting agent is Hamptons now."), a number or anything with a digit or an @ that is not its
    subject, a possessor, a name called out ("Hey John, …") or part of one of them. "I drive a
    Honda Civic." names one; "Joanna couldn't agree more!", "Seven years now, and Melanie has
    finally found her real muses" and "Yep, Joanna. Nate got this new pup for you!" name none."""
    tokens = fact.parsed.tokens
    when = _named(fact.parsed, _WHEN_LABELS)
    named = _named(fact.parsed) - when
    holder = {i for i, t in enumerate(tokens) if t.dep in SUBJECT_DEPS + ("poss", "npadvmod", "intj")}
    holder |= {i for i, t in enumerate(tokens) if t.dep in ("compound", "case") and t.head in holder}
    return any((i in named or _value_like(t) or i > 0 and t.text[:1].isupper() and t.text != "I")
               and i not in holder and i not in when for i, t in enumerate(tokens))


_WHEN_LABELS = frozenset({"DATE", "TIME"})


def may_update(older: Fact, newer: Fact, *, in_passing: bool = False) -> bool:
    """Nothing in the two texts says that ``newer`` is not a later value of what ``older`` states:
    neither is a question (with ``in_passing``, none but one that uses the speaker's value:
    ``uses_a_value``), and the newer carries no cue of an addition, a stay elsewhere or the same
    value again (``not_a_change``), nor another phone, e-mail or password (rules 2 and 3's vetoes,
    without their holder and attribute tests: recall's ``newer_leads`` reads those from the
    question)."""
    return stated(older.text, in_passing) and stated(newer.text, in_passing) and not (
        not_a_change(newer.text) or _another_value(older, newer))


def _same_holder(a: Fact, b: Fact) -> bool:
    _, proper_a = subject_keys(a.parsed)
    _, proper_b = subject_keys(b.parsed)
    return bool(_holders(a) & _holders(b)) and not (proper_a and proper_b and not proper_a & proper_b)


# slots whose noun often carries a qualifier naming one of several values held at once
_QUALIFIED = frozenset({"phone", "email", "password"})
_CONTACT_NOUNS = frozenset({"phone", "mobile", "number", "email", "e-mail", "mail", "address", "cell", "landline",
                            "telephone", "line", "password", "passcode", "pin", "code"})
_NO_QUALIFIER = frozenset({"new", "old", "current", "latest", "updated", "usual", "only", "same"})


def _qualifiers(fact: Fact) -> frozenset[str]:
    """What tells one of several values apart in the text: the modifiers of a contact noun ("my
    *work* phone", "my *personal* email") and the purpose a value is given for ("*for freelance
    stuff*, please put …", "*for work*, use …", "for anything *personal*"). A name ("the
    Brightwater address"), a pronoun, another contact noun ("phone number") or a change word
    ("new number") qualifies nothing."""
    tokens = fact.parsed.tokens
    words: list[Token] = []
    for i, t in enumerate(tokens):
        if t.dep in ("amod", "compound", "nmod") and tokens[t.head].text.lower() in _CONTACT_NOUNS:
            words.append(t)
        elif (t.dep == "pobj" and tokens[t.head].text.lower() == "for"
              and tokens[tokens[t.head].head].pos in ("VERB", "AUX")):
            words += [t] + [k for k in tokens if k.head == i and k.dep in ("amod", "compound")]
    return frozenset(w.text.lower() for w in words if w.pos not in ("PRON", "PROPN")) - _CONTACT_NOUNS - _NO_QUALIFIER


def _another_value(older: Fact, newer: Fact) -> bool:
    """A phone, an e-mail or a password is another value, not a new one, when the newer text
    qualifies it in a way the older does not ("My mobile is …" / "My work phone is …"; "My personal
    email is …" / "For work, use …"): people hold several at once."""
    return bool(slots(older.text) & slots(newer.text) & _QUALIFIED and _qualifiers(newer) - _qualifiers(older))


def _slot_reason(a: Fact, b: Fact, same_holder: bool) -> str | None:
    """The shared slot that links the pair: a plan by its own keys (the objects count: "moved the
    wedding"), another slot by the same holder or the same owner of the slot's noun."""
    shared = slots(a.text) & slots(b.text)
    if "plan" in shared:
        pa, _ = subject_keys(a.parsed, plan=True)
        pb, _ = subject_keys(b.parsed, plan=True)
        if (pa & pb) - {SELF}:
            return "plan"
    for slot in sorted(shared - {"plan"}):
        if same_holder or _slot_owners(a, slot) & (_slot_owners(b, slot) | _holders(b)) \
                or _slot_owners(b, slot) & _holders(a):
            return slot
    return None


def judge(a: Fact, b: Fact, masked: float | None = None) -> tuple[str | None, bool]:
    """(the reason when the rule supersedes, whether the pair is worth asking an LLM about); see the
    module docstring for the rule. ``masked``: the cosine similarity of the two texts with their
    values masked (``masked_text``), when an embedder was at hand."""
    return _settled(_verdict(a, b), masked)


_MASKED_DECIDES = "masked?"


def _settled(verdict: tuple[str | None, bool], masked: float | None) -> tuple[str | None, bool]:
    """A ``_verdict`` with the masked texts' similarity read where it decides."""
    reason, worth = verdict
    if reason != _MASKED_DECIDES:
        return verdict
    return ("masked", True) if masked is not None and masked >= MASKED_SIMILARITY else (None, worth)


def _verdict(a: Fact, b: Fact) -> tuple[str | None, bool]:
    """``judge`` before the masked signal: its reason is ``_MASKED_DECIDES`` for a pair that only
    the masked texts' similarity can still link (same holder, a change cue, no relation word shared
    enough, no slot the older lacks)."""
    ordered = _ordered(a, b)
    if ordered is None or is_question(a.text) or is_question(b.text):
        return None, False
    older, newer = ordered
    if older.who == newer.who and denies(older.text, newer.text):
        return "correction", True
    same_holder = _same_holder(a, b)
    worth = same_holder or bool(slots(a.text) & slots(b.text))
    if not may_update(older, newer):
        return None, worth
    slot = _slot_reason(a, b, same_holder)
    if slot is not None:
        return slot, True
    words_a, words_b = relation_words(a.parsed), relation_words(b.parsed)
    if not (same_holder or a.who == b.who and _only_self(a) and _only_self(b)) \
            or not _change_cued(newer, words_a & words_b) or _asks(a) or _asks(b):
        return None, worth
    if _overlap(words_a, words_b) >= 0.5:
        return "relation", True
    if not slots(newer.text) - slots(older.text) and states_value(older) and states_value(newer):
        return _MASKED_DECIDES, worth
    return None, worth


def masked_text(parsed: Parsed) -> str:
    """The text with its values masked: named entities, proper nouns, numbers and anything with a
    digit or an @ become one "X" each run; time words and change cues go. "I support Everton." →
    "I support X ."; "Celtics are my NBA team these days." → "X are my X team ."."""
    named = _named(parsed)
    out: list[str] = []
    for i, t in enumerate(parsed.tokens):
        if i in named or _value_like(t):
            if not out or out[-1] != "X":
                out.append("X")
        elif not (_MASKED_TIME.fullmatch(t.text) or CHANGE_CUES.fullmatch(t.text)):
            out.append(t.text)
    return " ".join(out)


def _masked_similarity(pairs: Sequence[tuple[Fact, Fact]], need: Sequence[bool],
                       embedder: Embedder | None) -> list[float | None]:
    """Per pair, the cosine of its two masked texts (``masked_text``), only for the pairs ``need``
    marks (those the masked signal can decide); one embedder call for all. Embedding every pair with
    a change cue made a LoCoMo put's supersession dozens of times slower."""
    texts = sorted({masked_text(f.parsed) for (a, b), n in zip(pairs, need) if n for f in (a, b)})
    if not texts or embedder is None:
        return [None] * len(pairs)
    vectors = np.asarray(embedder.embed(texts), dtype=np.float32)
    vectors /= np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
    at = {t: v for t, v in zip(texts, vectors)}
    return [float(at[masked_text(a.parsed)] @ at[masked_text(b.parsed)]) if n else None
            for (a, b), n in zip(pairs, need)]


def rule_pairs(pairs: Sequence[tuple[Fact, Fact]],
               embedder: Embedder | None = None) -> tuple[list[Pair], list[tuple[Fact, Fact]]]:
    """(supersessions by the rule, the pairs worth asking an LLM about — older first)."""
    verdicts = [_verdict(a, b) for a, b in pairs]
    masked = _masked_similarity(pairs, [reason == _MASKED_DECIDES for reason, _ in verdicts], embedder)
    decided: list[Pair] = []
    ask: list[tuple[Fact, Fact]] = []
    for (a, b), verdict, cosine in zip(pairs, verdicts, masked):
        reason, worth = _settled(verdict, cosine)
        ordered = _ordered(a, b)
        if ordered is None:
            continue
        older, newer = ordered
        if reason is not None:
            decided.append(Pair(older.id, newer.id, f"rule:{reason}"))
        if worth:
            ask.append((older, newer))
    return decided, ask
