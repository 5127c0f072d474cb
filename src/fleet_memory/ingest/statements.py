"""What a message tells and what it asks, read from its text alone (no parse): the put-time rule
(``ingest.change_rule``) and recall's reading of a later answer (``ingest.asked_holder``) both start
here.

- ``is_question`` / ``told`` / ``stated`` / ``uses_a_value``: a text is cut into its sentences and the
  clauses a dash, a semicolon or a question after a plain first-person clause set apart; a question
  states no value, unless (for recall) it uses the speaker's value without weighing it.
- ``CHANGE_CUES`` and ``not_a_change``: the words that say a value changed, and those that say it did
  not — an addition, a stay elsewhere, the same value again, read where the text tells them.
- ``denies``: a self-repair, "not" before a value the older text names.

Each reading is explained, with the examples it was written for and against, where it is defined.
"""

from __future__ import annotations

import functools
import re

__all__ = ["CHANGE_CUES", "DENIED", "denies", "is_question", "not_a_change", "stated", "told", "uses_a_value"]

_I = re.IGNORECASE
CHANGE_CUES = re.compile(
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


# a value denied: "not" before a name or a number ("my dentist is Dr Ahmed at Brightwhite Dental, not
# Smile Studio", "standup is 9:15, not 9:30", "it's B41 not B14")
DENIED = re.compile(r"\bnot (?:(?:at|with|in|on|the|at the|with the|in the|on the) )?"
                     r"((?!I\b)[A-Z0-9][\w'’.@:-]*(?: [A-Z][\w'’-]*)*)")


def denies(older: str, newer: str) -> bool:
    """The newer text is a self-repair of the older: it says "not" of a value the older names, a
    name or a number right after the "not" ("Oops, my physio is actually at Core Physio, not Active
    Rehab" after "My physio at Active Rehab wants me to …"; "typo, my postcode is LS6 2BA not 2AB").
    Whatever else the texts share, the older value is no longer what the speaker says holds: the
    strongest sign of a change there is, and one no slot or cue list needs. Not a value the older
    text does not name ("not Friday" after a text about Tuesday), nor a common word ("not that
    bad"), nor "I"."""
    values = {m.group(1).rstrip(".:'’-") for m in DENIED.finditer(newer)}
    return any(re.search(rf"(?<![\w-]){re.escape(v)}(?![\w-])", older) for v in values if v)


@functools.lru_cache(maxsize=8_192)
def not_a_change(text: str) -> bool:
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


def stated(text: str, in_passing: bool = False) -> bool:
    """The text states a value: it is no question, or (``in_passing``) one that uses the speaker's
    value (``uses_a_value``)."""
    return not is_question(text) or in_passing and uses_a_value(text)
