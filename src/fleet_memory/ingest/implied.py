"""The implied subject of a chat line without one: "Started at the new clinic today." said by
Alice is "Alice started at the new clinic today.". Rule-based on the parse of the line's first
word; linear in the tokens.

- a past tense or participle ("Started", "Met", "Booked"; the small model tags some as proper
  nouns, so a word ending in "ed" or a common irregular past counts too), or a present 3rd person
  ("Loves …") → "Alice started …";
- a participle that reads as a state ("Excited for the future!", "Swamped with work") or a
  gerund ("Heading to Paris"), or "off", "back", "home", "away", "out" → "Alice is …";
- a few verbs of wanting and feeling in the base form ("Need to renew …", "Love that café") →
  put into the third person ("Alice needs to renew …"); any other base form is an imperative
  addressed to the listener ("Have fun!") and is kept as said;
- a question, an auxiliary first ("Was it fun?", "Got any tunes?": the implied subject is "you"),
  a verb whose implied subject is "it"/"that" ("Sounds like fun", "Rained all day"), or anything
  else → ``None``: the line is kept as said, with the implied subject in metadata.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..language.verbs import third_person
from ..providers.nlp import Token

__all__ = ["with_subject"]

_IRREGULAR_PAST = {
    "met", "went", "got", "had", "took", "made", "saw", "ran", "bought", "lost", "left", "spent", "sent",
    "found", "gave", "told", "came", "did", "ate", "began", "won", "felt", "kept", "paid", "held", "heard",
    "sold", "wrote", "drove", "flew", "swam", "broke", "caught", "taught", "thought", "brought", "built",
    "chose", "forgot", "drew", "rode", "sang", "slept", "woke", "wore", "threw", "read", "put", "cut", "hit",
}
_IT_VERBS = {"sounds", "sounded", "looks", "looked", "seems", "seemed", "rained", "snowed", "appears", "means",
             "makes", "made", "turns", "happened", "depends", "reminds", "helps", "works", "worked"}
_STATE_WORDS = {"off", "back", "home", "away", "out"}
_STATES = {
    "excited", "thrilled", "stoked", "pleased", "delighted", "bored", "tired", "exhausted", "worried", "scared",
    "surprised", "amazed", "impressed", "interested", "blessed", "honored", "honoured", "stuck", "done", "married",
    "engaged", "hooked", "obsessed", "inspired", "motivated", "determined", "overwhelmed", "relieved", "shocked",
    "stressed", "swamped", "gutted", "chuffed", "knackered", "sorted", "booked", "packed", "settled", "annoyed",
    "disappointed", "terrified", "frustrated", "confused", "convinced", "prepared", "ready", "involved", "based",
}
_WANTING = {"need", "want", "love", "hate", "like", "hope", "plan", "wish", "miss", "feel", "think"}
_AUX_FIRST = {"was", "were", "is", "are", "am", "did", "do", "does", "have", "has", "had", "got", "can", "could",
              "will", "would", "should", "shall", "may", "might", "must"}


def with_subject(tokens: Sequence[Token], text: str, subject: str) -> str | None:
    """``text`` (the line, parsed as ``tokens``, perhaps rewritten by coreference after its first
    word) with ``subject`` made explicit, or ``None`` when no safe rewrite exists."""
    if not tokens or not tokens[0].text[:1].isalpha() or not text.startswith(tokens[0].text):
        return None
    first = tokens[0]
    low = first.text.lower()
    rest = text[len(first.text):]
    if low in _IT_VERBS or low in _AUX_FIRST or text.rstrip().endswith("?"):
        return None
    if low in _STATES:
        head = "is " + low
    elif first.tag in ("VBD", "VBN", "VBZ") or low in _IRREGULAR_PAST or (low.endswith("ed") and len(low) > 3):
        head = low
    elif low in _WANTING:
        head = third_person(low)
    elif first.tag == "VBG":
        head = "is " + low
    elif low in _STATE_WORDS and first.pos in ("ADP", "ADV", "ADJ"):
        head = "is " + low
    else:
        return None
    return (subject + " " + head + rest).strip()
