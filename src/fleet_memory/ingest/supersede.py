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
   changed/switched/moved: "Tomasz changed his number again"): ``_not_a_change``.
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

   b and c link only with the same holder AND a change cue in the newer text (``_CHANGE_CUES``: now,
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
   candidate when the two texts share a slot or the newer has a change cue; ``_may_change`` picks the
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

With an LLM (``LLMConfig`` set and ``IngestConfig.llm_supersession`` on) the pairs that pass 1 and
share a holder or a slot — a wider net than the rule's — go to it in ONE structured call per put; each
pair is answered ``update``, ``duplicate`` or ``unrelated`` and validated like extraction
(``providers.llm.structured_call``: an invalid answer is retried). ``update`` and ``duplicate``
supersede; the LLM's answer replaces the rule's for the pairs it names (a pair it leaves out keeps
the rule's decision). When the judge fails — the endpoint is down, or no valid answer comes after
the retries — the put does not fail: the offline rule decides every pair, and a warning is logged
(the units were stored already; supersession only refines them). The judge runs after the put's
transaction has committed (``judge_after_commit``): candidates and the rule in one short transaction
(``read_candidates``), the call outside any (``with_llm``), the result in another (``record``), so
no transaction stays open while the model answers.

A put calls this module in one step: ``supersede_put`` inside its transaction (the rule, and the
corrections an ``update`` states), then, with an LLM judge, ``judge_after_commit``.
"""

from __future__ import annotations

import functools
import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from typing import Literal
from uuid import UUID

import numpy as np
import psycopg
from pydantic import BaseModel, Field

from ..clock import Clock
from ..config import IngestConfig
from ..errors import FleetMemoryError, ProviderError
from ..providers.llm import LLM, structured_call
from ..providers.embedder import Embedder
from ..providers.nlp import NLP, Parsed, Token
from ..store import Database
from ..store.linking.embedding_cache import EmbeddingCache
from ..store.tables import supersession as sup_sql
from .records import Episode, WrittenPut, WrittenUnit

__all__ = ["SLOTS", "Fact", "Pair", "slots", "subject_keys", "relation_words", "is_question", "rule_pairs",
           "llm_verdicts", "Verdicts",
           "supersede_put", "judge_after_commit", "StatedUnit", "stated_by_agent", "speaker_key", "Judged",
           "read_candidates", "with_llm", "record", "may_update", "denies", "stated", "told", "uses_a_value",
           "states_value", "indefinite", "copular", "FIRST_PERSON", "SUBJECT_DEPS", "SELF"]

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
_log = logging.getLogger(__name__)
_END_OF_TIME = datetime.max.replace(tzinfo=timezone.utc)  # "current" = not superseded at all


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
_CHANGE_CUES = re.compile(
    r"\b(now|new|moved|moving|switch\w*|chang\w*|renamed|instead|no longer|from now on|cancell?ed|canceled"
    r"|called off|any ?more|these days|since|replac\w*|actually|transferred|postponed|pushed back|started"
    r"|promoted|quit|gave up|dropped|sold|left|not \w+ any ?more)\b", _I)
# a stay elsewhere: a cue of _NOT_A_CHANGE, and none once the plan ended ("Cancelled the Kyoto trip")
_STAYS = (r"visit\w*|trip|stay(?:ed|ing)?|on (?:holiday|vacation|leave)|day pass|for the (?:week|weekend)"
          r"|back from an? (?:week|weekend|fortnight|few days|month|trip|holiday)")
# what is not a change: another of the same (additive), a stay elsewhere, the same plan again
_NOT_A_CHANGE = re.compile(
    rf"\b(also|as well|another|second|(?<!the )other(?! one)|added|extra|{_STAYS}|drop-in|rented"
    r"|while (i|we) (was|were)|still|again|confirmed|definitely|as usual|locum)\b"
    r"|\btoo\b(?![ \t]+[a-z])", _I)  # "a cat too", not "too loud"
_CHANGED_AGAIN = re.compile(r"\b(changed|switched|moved)\b", _I)
_PLAN_ENDED = re.compile(r"\b(cancell?ed|canceled|called off|postponed|rescheduled)\b", _I)
_STAY = re.compile(_STAYS, _I)
# a stay told by its length or a stand-in's cover ("I'm in Lagos for three weeks", "Covering nights for
# Dave while he's off"); not a length that counts how long a new state has lasted ("been vegan for a
# week now", "moved in a fortnight ago")
_FOR_A_WHILE = re.compile(r"\bfor (?:a|an|one|two|three|four|five|six|a few|a couple of|\d+) (?:days?|nights?|weeks?"
                          r"|fortnight)\b|\bcover(?:ing)? (?:\w+ )?for\b", _I)
_HAS_LASTED = re.compile(r"\b(?:been|ago|since)\b", _I)
_VALUE_CHARS = re.compile(r"[\d@]")
_MASKED_TIME = re.compile(r"now|these|days|actually|currently|nowadays|lately|recently|finally|today", _I)
# the masked texts' cosine from which a same-holder pair with a change cue is one attribute (see the
# module docstring for how it was chosen and where it is thin)
MASKED_SIMILARITY = 0.7
_PARTS = re.compile(r"(?<=[.!?])\s+|\s+[—–-]\s+|;\s*|,\s+(?=(?:can|could|would|will)\s+you\b)", _I)
_QUESTION_START = re.compile(
    r"^\s*(should|would|could|can|is|are|do|does|did|will|what|which|who|where|when|how|why)\b", _I)
# a question after a comma asks beside what a plain first-person clause before it tells ("I bank with
# Lloyds, can I set up a standing order?", "moved over to neovim, how do I …?"); a clause that hedges,
# sets a condition or opens otherwise ("Hypothetically, should I …", "If we move, should we …",
# "Maybe we should move, what do you think?") is part of the question
_ASKED_AFTER_COMMA = re.compile(r",\s+(?=(?:can|could|should|shall|do|am)\s+(?:i|we)\b"
                                r"|(?:how|what|which|where|when|why)\s+(?:do|does|can|could|should|would|is|are)"
                                r"\s+(?:i|we|you)\b)", _I)
# a past tense opens a told clause ("Changed my handle to …, can you …"); "Need", "Speed" are no past
# tense, and a word set off by a comma ("Fred, can we …", "Indeed, how do I …") tells nothing
_NOT_PAST = r"(?:need|feed|seed|weed|heed|speed|bleed|breed|proceed|succeed|exceed|shed|bed|red|wed|embed)\b"
_TOLD_FIRST = re.compile(rf"^\s*(?:i|i['’]m|i['’]ve|we|we['’]re|we['’]ve|my|our"
                         rf"|(?:just |finally )?(?!{_NOT_PAST})[a-z]+ed(?=\s+\w))\b", _I)
_HEDGE = re.compile(r"\b(should|could|would|might|may|maybe|perhaps|thinking|considering|wondering|planning|hoping"
                    r"|if|unless|whether|once|suppose|assuming|or)\b", _I)
_VALUE_IN_PART = re.compile(r"[\d@]|\s[A-Z]|\b(is|are|'s)\b")  # "Please note my new address is 5 Elm Street"
_BESIDE_A_QUESTION = re.compile(r"^\s*(help|tell|give|show|explain|suggest|recommend|please|pls|let me know"
                                r"|any (tips|ideas|thoughts|advice)|(just )?curious|asking for a friend)\b", _I)
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
                or _CHANGE_CUES.fullmatch(low)):
            continue
        out.add(_stem(low))
    return frozenset(out)


def _overlap(a: frozenset[str], b: frozenset[str]) -> float:
    return len(a & b) / min(len(a), len(b)) if a and b else 0.0


@functools.lru_cache(maxsize=8_192)
def is_question(text: str) -> bool:
    """A question states no value ("Should I move to Manchester?"). A text is one when each of its
    parts is — its sentences, and the clauses a dash, a semicolon or ", can you" set apart, or a
    comma before a question after a plain first-person clause (``_told_then_asked``): "Changed my
    GitHub handle to dkowal, can you update the badge links?", "I bank with Lloyds, can I set up a
    standing order in the app?" and "Mum's email is X — can you draft a message to her?" state a
    value and ask something besides; "If we move, should we sell?" and "Hypothetically, should I
    take the job?" do not. Beside a question, a request or an aside that names no value states
    nothing either ("If I took the hospital job, would the pay cut be worth it? help me weigh it
    up", "Would going vegan be hard? just curious": ``_BESIDE_A_QUESTION``; not "Please note my new
    address is 5 Elm Street")."""
    parts = _parts(text)
    asked = [_asked(p) for p in parts]
    return any(asked) and all(a or _BESIDE_A_QUESTION.match(p) is not None and _VALUE_IN_PART.search(p) is None
                              for p, a in zip(parts, asked))


# what makes a question weigh a value instead of using one: a modal of choice, a condition, a
# comparison, an opinion asked for, a change or an acquisition considered (``uses_a_value``)
_WEIGHS = re.compile(
    r"\b(should|shall|would|could(?! you)|might|may|worth|better|best|cheaper|than|vs|versus|or|if|whether|unless"
    r"|suppose|assuming|thinking|considering|wondering|tempted|planning|hoping|any good|think|opinion|recommend"
    r"|instead|switch\w*|mov(?:e|ing)|chang\w*|transfer\w*|join\w*|sign(?:ing)? up|apply|applying|open|get|buy"
    r"|order|book|try|cancel\w*|leave|quit|choose|pick|compare)\b", _I)
_SPEAKER_WORD = re.compile(r"\b(i|my|me|we|our|us)\b", _I)


@functools.lru_cache(maxsize=8_192)
def uses_a_value(text: str) -> bool:
    """A question that takes the speaker's value as given: the speaker is in it ("I", "my", "we")
    and nothing in it weighs the value (``_WEIGHS``) — "how do i stop the Framework 13 waking up in
    my bag?", "Does my giffgaff plan include data roaming in Spain?" tell what laptop and what
    network the user has, as "Should I switch to Monzo?", "is Three any good? wondering if it'd be
    worth moving over", "If we moved to Parramatta, how long is the commute?" and "How do I open a
    Starling account?" do not; "Does Octopus do fixed tariffs?" names nobody's value. Values
    a question presupposes are true for the one who asks (a definite or possessed thing in use);
    values it weighs are candidates. Recall reads the first as statements (``may_update``'s
    ``in_passing``); the put-time rule does not (a link is a claim, and a wrong one costs more)."""
    return is_question(text) and _SPEAKER_WORD.search(text) is not None and _WEIGHS.search(text) is None


def told(text: str) -> str:
    """The parts of the text that tell rather than ask (``is_question``'s parts), or the whole text
    when every part asks: what a cue of no change is read in ("Renamed my GitHub to jamie-woods-dev.
    Will the old links in my CV still redirect?" tells a rename; its "still" is asked)."""
    kept = [p for p in _parts(text) if not _asked(p)]
    return " ".join(kept) if kept else text


def _parts(text: str) -> list[str]:
    """The sentences and clauses ``is_question`` reads one by one (``_PARTS``, ``_told_then_asked``)."""
    return [q.strip() for p in _PARTS.split(text) for q in _told_then_asked(p) if q.strip(" \t\n.!,")]


def _asked(part: str) -> bool:
    return part.endswith("?") or _QUESTION_START.match(part) is not None


def _told_then_asked(part: str) -> list[str]:
    """``part`` cut where a question follows a comma, when what comes before it is a plain
    first-person clause (``_ASKED_AFTER_COMMA``); else ``part`` whole."""
    found = _ASKED_AFTER_COMMA.search(part)
    if found is None or not _TOLD_FIRST.match(part) or _HEDGE.search(part, 0, found.start()):
        return [part]
    return [part[:found.start()], part[found.end():]]


def _may_relate(a: str, b: str, newer: str) -> bool:
    """The cheap test before any parse: a shared slot, or a change cue in the newer text — the rule
    links by nothing else (``judge``)."""
    return bool(slots(a) & slots(b) or _CHANGE_CUES.search(newer))


def _may_link(a: str, b: str, newer: str) -> bool:
    """The tests of ``judge`` that read no parse, for a pair of another event time: neither text is
    a question, and the newer denies a value the older names (``denies``) or it is not an addition,
    a stay or the same value again, and ``_may_relate``."""
    older = b if newer == a else a
    return not (is_question(a) or is_question(b)) and (
        denies(older, newer) or not _not_a_change(newer) and _may_relate(a, b, newer))


def _may_change(text: str) -> bool:
    """Whether a new unit is worth a candidate search for the rule: it states a slot, has a change
    cue or denies a value (``_DENIED``). Searching and parsing candidates for every unit made a
    LoCoMo put's supersession about forty times slower for no link the rule could make (a unit
    dated before a stored one that carries the cue is the case this leaves out)."""
    return bool(slots(text) or _CHANGE_CUES.search(text) or _DENIED.search(text))


# a value denied: "not" before a name or a number ("my dentist is Dr Ahmed at Brightwhite Dental, not
# Smile Studio", "standup is 9:15, not 9:30", "it's B41 not B14")
_DENIED = re.compile(r"\bnot (?:(?:at|with|in|on|the|at the|with the|in the|on the) )?"
                     r"((?!I\b)[A-Z0-9][\w'’.@:-]*(?: [A-Z][\w'’-]*)*)")


def denies(older: str, newer: str) -> bool:
    """The newer text is a self-repair of the older: it says "not" of a value the older names, a
    name or a number right after the "not" ("Oops, my physio is actually at Core Physio, not Active
    Rehab" after "My physio at Active Rehab wants me to …"; "typo, my postcode is LS6 2BA not 2AB").
    Whatever else the texts share, the older value is no longer what the speaker says holds: the
    strongest sign of a change there is, and one no slot or cue list needs. Not a value the older
    text does not name ("not Friday" after a text about Tuesday), nor a common word ("not that
    bad"), nor "I"."""
    values = {m.group(1).rstrip(".:'’-") for m in _DENIED.finditer(newer)}
    return any(re.search(rf"(?<![\w-]){re.escape(v)}(?![\w-])", older) for v in values if v)


def _holders(fact: Fact) -> frozenset[str]:
    keys, _ = subject_keys(fact.parsed)
    return _own(keys, fact.who)


@functools.lru_cache(maxsize=8_192)
def _not_a_change(text: str) -> bool:
    """An addition, a stay elsewhere (also one told by its length or a stand-in's cover:
    ``_FOR_A_WHILE``) or the same value again (``_NOT_A_CHANGE``), unless a stronger cue says
    otherwise: "changed his number again" is a change, "cancelled the Kyoto trip" a plan's. The same
    value again counts only where the text tells it (``told``): "Renamed my GitHub to
    jamie-woods-dev. Will the old links still redirect?" asks its "still"; an addition counts where
    it is asked too ("Bought a Fiat 500 for my wife. Cheapest way to insure a second car?")."""
    cues = _no_change_cues(text)
    if cues & _SAME_AGAIN and (telling := told(text)) != text:
        cues = (cues - _SAME_AGAIN) | (_no_change_cues(telling) & _SAME_AGAIN)
    return bool(cues)


_SAME_AGAIN = frozenset({"still", "again", "confirmed", "definitely", "as usual"})


def _no_change_cues(text: str) -> set[str]:
    cues = {m.group(0).lower() for m in _NOT_A_CHANGE.finditer(text)}
    if _CHANGED_AGAIN.search(text):
        cues.discard("again")
    if _PLAN_ENDED.search(text):
        cues = {c for c in cues if not _STAY.fullmatch(c)}
    elif _FOR_A_WHILE.search(text) and not _HAS_LASTED.search(text):
        cues.add("for a while")
    return cues


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
    return any(m.group(0).lower() not in describing for m in _CHANGE_CUES.finditer(fact.text))


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
    value again (``_not_a_change``), nor another phone, e-mail or password (rules 2 and 3's vetoes,
    without their holder and attribute tests: recall's ``newer_leads`` reads those from the
    question)."""
    return stated(older.text, in_passing) and stated(newer.text, in_passing) and not (
        _not_a_change(newer.text) or _another_value(older, newer))


def stated(text: str, in_passing: bool = False) -> bool:
    """The text states a value: it is no question, or (``in_passing``) one that uses the speaker's
    value (``uses_a_value``)."""
    return not is_question(text) or in_passing and uses_a_value(text)


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
        elif not (_MASKED_TIME.fullmatch(t.text) or _CHANGE_CUES.fullmatch(t.text)):
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


class Verdict(BaseModel):
    pair: int = Field(ge=0)
    verdict: Literal["update", "duplicate", "unrelated"]


class Verdicts(BaseModel):
    verdicts: list[Verdict]


_PROMPT = (
    "Each numbered pair holds an OLDER and a NEWER memory of the same user. Answer for every pair: "
    "'update' when the newer states the current value of the same thing the older stated about the same "
    "subject (a move, a new job, a new number, a changed or cancelled plan, a rename), 'duplicate' when it "
    "says the same thing again, 'unrelated' otherwise (different subjects, or both can be true at once). "
    "Answer with JSON only: {\"verdicts\": [{\"pair\": N, \"verdict\": ...}]}."
)


def llm_verdicts(llm: LLM, pairs: Sequence[tuple[Fact, Fact]], *, retries: int = 2) -> dict[int, str]:
    """ONE structured call for all pairs (older, newer): ``{pair index: verdict}`` for the pairs the
    answer names (indexes outside the list are ignored; a pair named twice keeps its first verdict).
    Raises ``ProviderError`` (``ExtractionError`` for an invalid answer after the retries)."""
    if not pairs:
        return {}
    lines = [f"#{i} OLDER ({o.event_date.date().isoformat()}): {o.text}\n   NEWER ({n.event_date.date().isoformat()}):"
             f" {n.text}" for i, (o, n) in enumerate(pairs)]
    messages = [{"role": "system", "content": _PROMPT}, {"role": "user", "content": "\n".join(lines)}]
    answer = structured_call(llm, messages, Verdicts, retries=retries)
    out: dict[int, str] = {}
    for v in answer.verdicts:
        if v.pair < len(pairs):
            out.setdefault(v.pair, v.verdict)
    return out


@dataclass(frozen=True, slots=True)
class StatedUnit:
    """A unit just written, as supersession reads it."""

    id: UUID
    text: str
    event_date: datetime
    embedding: np.ndarray
    who: str = ""  # ``speaker_key(user_id, speaker)``


@dataclass(frozen=True, slots=True)
class Judged:
    """The rule's reading of one agent's new units: the pairs it decided, the pairs to ask an LLM,
    and what recording needs (the candidates already superseded, every text's event time)."""

    decided: list[Pair]
    ask: list[tuple[Fact, Fact]]
    ended: set[UUID]
    when: dict[UUID, datetime]
    written: dict[UUID, tuple[int, int]]  # write order: (0, seq) of a stored unit, (1, position) of a new one


def stated_by_agent(units: Sequence[WrittenUnit]) -> dict[str, list[StatedUnit]]:
    """The written units as supersession reads them, per agent (sorted by agent)."""
    by_agent: dict[str, list[StatedUnit]] = {}
    for unit in units:
        row = unit.row
        by_agent.setdefault(row.agent_id, []).append(
            StatedUnit(row.id, row.text, row.event_date, row.embedding, speaker_key(row.user_id, row.speaker)))
    return dict(sorted(by_agent.items()))


def supersede_put(conn: psycopg.Connection, episodes: Sequence[Episode], written: WrittenPut, nlp: NLP,
                  config: IngestConfig, now: datetime, *, rule: bool, cache: EmbeddingCache | None = None,
                  embedder: Embedder | None = None) -> int:
    """A put's supersession, inside its transaction: with ``rule`` (supersession on and no LLM
    judge, whose turn comes after the commit: ``judge_after_commit``), the offline rule on every
    agent's new units — ``read_candidates`` then ``record``, with the agent's unit count after the
    write and the agents' embeddings held between puts (``store.tables.supersession.similar_units``) —; then
    the corrections of ``update``: the first unit of an episode that ``corrects`` a unit
    supersedes it. Returns how many units were superseded."""
    made = 0
    for agent_id, stated in (stated_by_agent(written.units) if rule else {}).items():
        judged = read_candidates(conn, agent_id, stated, nlp, config, wide=False,
                                 size=written.unit_counts.get(agent_id), cache=cache, embedder=embedder)
        made += record(conn, agent_id, judged, now) if judged else 0
    first: dict[int, WrittenUnit] = {}
    for unit in written.units:
        first.setdefault(unit.episode_index, unit)
    for index, unit in sorted(first.items()):
        old = episodes[index].corrects
        if old is not None:
            made += sup_sql.supersede(conn, unit.row.agent_id, [(old, unit.row.id, "update")], now)
    return made


def judge_after_commit(db: Database, units: Sequence[WrittenUnit], nlp: NLP, llm: LLM, config: IngestConfig,
                       retries: int, clock: Clock, cache: EmbeddingCache | None = None,
                       embedder: Embedder | None = None) -> None:
    """Supersession judged by the LLM, after the put committed, so no transaction stays open while
    the model answers: per agent, the candidates and the rule in one short transaction, the call
    outside any, the result recorded in another. Supersession only refines stored units: when a
    step fails the units stay current and the failure is logged, never raised."""
    for agent_id, stated in stated_by_agent(units).items():
        try:
            with db.transaction() as conn:
                judged = read_candidates(conn, agent_id, stated, nlp, config, wide=True, cache=cache,
                                         embedder=embedder)
            if judged is None:
                continue
            judged = with_llm(judged, llm, retries)
            with db.transaction() as conn:
                record(conn, agent_id, judged, clock.now())
        except FleetMemoryError as exc:
            _log.warning("supersession of agent %r's new units was not recorded: %s", agent_id, exc)


def read_candidates(conn: psycopg.Connection, agent_id: str, new: Sequence[StatedUnit], nlp: NLP, config: IngestConfig,
          *, wide: bool, size: int | None = None, cache: EmbeddingCache | None = None,
          embedder: Embedder | None = None) -> Judged | None:
    """Candidates (cheap: only new units that state a slot, one search for them; unless ``wide`` — the
    LLM's net — only those that share a slot with the new unit and have another event time, the
    rule's first tests, which made the parse of every candidate most of the stage's time), one
    parse of the texts involved, and the rule. None when there is no candidate."""
    stating = [u for u in new if not is_question(u.text) and (wide or _may_change(u.text))]
    if not stating:
        return None
    found = sup_sql.similar_units(conn, agent_id, [(u.id, u.embedding) for u in stating],
                               min_similarity=config.supersede_min_similarity, k=config.supersede_candidates,
                               size=size, cache=cache)
    said = {u.id: u for u in stating}
    if not wide:  # what the rule refuses before any parse (``judge``'s first tests): those pairs are not parsed
        found = [c for c in found if c.unit.event_date != said[c.new_id].event_date
                 and _may_link(c.unit.text, said[c.new_id].text, _newer_text(c, said[c.new_id]))]
    if not found:
        return None
    texts: dict[UUID, tuple[str, datetime, str]] = {}
    for c in found:
        u = said[c.new_id]
        texts.setdefault(u.id, (u.text, u.event_date, u.who))
        texts.setdefault(c.unit.id, (c.unit.text, c.unit.event_date, speaker_key(c.unit.user_id, c.unit.speaker)))
    decided, ask = rule_pairs(_pairs(found, texts, nlp), embedder)
    written = {c.unit.id: (0, c.seq) for c in found}  # stored before this put's units, in seq order
    written.update((u.id, (1, i)) for i, u in enumerate(new))  # the put's own, in the order written
    return Judged(decided, ask, {c.unit.id for c in found if c.unit.valid_until is not None},
                  {i: t[1] for i, t in texts.items()}, written)


def _newer_text(candidate: sup_sql.SimilarUnit, new: StatedUnit) -> str:
    return new.text if new.event_date > candidate.unit.event_date else candidate.unit.text


def with_llm(judged: Judged, llm: LLM, retries: int) -> Judged:
    """``judged`` with the LLM's verdicts in place of the rule's for the pairs it answered (one call,
    made outside any transaction by the caller); when the judge fails (endpoint down, no valid
    answer after the retries) the rule decides alone and the put goes on (logged)."""
    ask = judged.ask
    if not ask:
        return judged
    try:
        verdicts = llm_verdicts(llm, ask, retries=retries)
    except ProviderError as exc:
        _log.warning("supersession: the LLM judge failed, the offline rule decides this put: %s", exc)
        return replace(judged, ask=[])
    answered = {(ask[i][0].id, ask[i][1].id) for i in verdicts}
    kept = [p for p in judged.decided if (p.older, p.newer) not in answered]
    judge = [Pair(ask[i][0].id, ask[i][1].id, f"llm:{v}") for i, v in sorted(verdicts.items()) if v != "unrelated"]
    return replace(judged, decided=kept + judge, ask=[])


def record(conn: psycopg.Connection, agent_id: str, judged: Judged, now: datetime) -> int:
    """Record the decided pairs: onto the current version of a line already superseded, each older
    unit ended by its earliest successor (of successors at the same time, the one written first:
    the turns of a session share their time, and breaking the tie by unit id made the same input
    end a fact by a different successor from one run to the next). Returns how many."""
    decided = _onto_current(conn, agent_id, judged.decided, judged.ended, judged.when)
    chosen: dict[UUID, Pair] = {}
    for p in sorted(decided, key=lambda p: (judged.when[p.newer], judged.written[p.newer])):
        chosen.setdefault(p.older, p)  # the earliest successor
    return sup_sql.supersede(conn, agent_id, [(p.older, p.newer, p.reason) for p in chosen.values()], now)


def _pairs(found: Sequence[sup_sql.SimilarUnit], texts: dict[UUID, tuple[str, datetime, str]],
           nlp: NLP) -> list[tuple[Fact, Fact]]:
    """(new, candidate) facts, each unordered pair once, every text parsed in one batch."""
    ids = list(texts)
    facts = {i: Fact(i, texts[i][0], texts[i][1], p, texts[i][2])
             for i, p in zip(ids, nlp.parse([texts[i][0] for i in ids]))}
    seen: set[frozenset[UUID]] = set()
    pairs = []
    for c in found:
        key = frozenset((c.new_id, c.unit.id))
        if key not in seen:
            seen.add(key)
            pairs.append((facts[c.new_id], facts[c.unit.id]))
    return pairs


def _onto_current(conn: psycopg.Connection, agent_id: str, decided: list[Pair], ended: set[UUID],
                  when: dict[UUID, datetime]) -> list[Pair]:
    """A pair whose older unit was superseded already supersedes the current version of that line
    instead (Harlow → notice, then "Started at the clinic" resembles Harlow more than the notice: it
    ends the notice), when that version is older than the new unit. One statement, only when needed."""
    stale = [p for p in decided if p.older in ended]
    if not stale:
        return decided
    heads = sup_sql.chains(conn, agent_id, sorted({p.older for p in stale}, key=str), _END_OF_TIME, bounded=False)
    out = [p for p in decided if p.older not in ended]
    for p in stale:
        head = heads.get(p.older)
        if head and head.current and head.current != p.newer and head.current_event_date < when[p.newer]:
            out.append(Pair(head.current, p.newer, p.reason))
    return out
