"""Named entities of each parsed fact, from the one spaCy parse of the batch.

Kept labels: PERSON, ORG, GPE, LOC, FAC, NORP, PRODUCT, EVENT, WORK_OF_ART (numbers, dates,
money … are not entities). Spans are cleaned ("the Louvre" → "Louvre", "Alice's" → "Alice") and
dropped when they hold no capital letter (the small model tags "the kids & work" as ORG) or, outside
places, a comma ("ya, Melanie"). A one-word span that opens the sentence ("Nah", "Wanna" as PERSON,
"Time" as ORG in chat) is kept only when the batch knows that name from elsewhere, when it is a
known first name (then as PERSON), or when it is tagged a proper noun with a label other than PERSON.

The small model misses names it saw elsewhere ("Alice loves hiking" has no PERSON span while
"Alice works at Google" has one). So, in one pass over the batch, a run of proper nouns that no
span covers becomes an entity when the same name was recognised elsewhere in the batch (a long put
is resolved window by window: in this window or an earlier one of the same put) (its label
is reused), is a speaker of the conversation (PERSON), or starts with a known first name (PERSON).
Speakers of conversation turns are PERSON entities of their turns (added when units are
assembled). O(tokens).
"""

from __future__ import annotations

from collections.abc import Sequence

from ..providers.nlp import Span, Token
from .names import is_first_name
from .records import Episode, NamedFact, ParsedFact

__all__ = ["KEPT_LABELS", "find_entities", "clean_name"]

KEPT_LABELS = frozenset({"PERSON", "ORG", "GPE", "LOC", "FAC", "NORP", "PRODUCT", "EVENT", "WORK_OF_ART"})


def clean_name(text: str) -> str:
    name = " ".join(text.replace("’", "'").split())
    if name.lower().startswith("the ") and len(name) > 4:
        name = name[4:]
    for suffix in ("'s", "'"):
        if name.endswith(suffix):
            name = name[: -len(suffix)]
    return name.strip(" .,;:!?\"'()[]-")


def _kept(span: Span) -> Span | None:
    if span.label not in KEPT_LABELS:
        return None
    name = clean_name(span.text)
    if len(name) < 2 or not any(c.isupper() for c in name):
        return None
    if "," in name and span.label not in ("GPE", "LOC", "FAC"):
        return None  # "ya, Melanie" (ORG): a vocative swallowed into a span
    return Span(name, span.label, span.start, span.end)


def _opens_sentence(tokens: Sequence[Token], start: int) -> bool:
    return all(not t.text[:1].isalnum() for t in tokens[:start])


def find_entities(episodes: Sequence[Episode], parsed: Sequence[ParsedFact],
                  known: dict[str, str] | None = None) -> list[NamedFact]:
    """Each parsed fact with its entity spans (same order), cleaned and completed as described above.
    ``known`` (name → label) carries the names of earlier windows of the same put, and is updated."""
    known = known if known is not None else {}
    for episode in episodes:
        if episode.speaker:
            known.setdefault(clean_name(episode.speaker), "PERSON")
    first: list[list[Span]] = []
    initial: list[list[Span]] = []
    for item in parsed:
        spans, openers = [], []
        for s in (_kept(e) for e in item.parse.ents):
            if s is None:
                continue
            if s.end - s.start == 1 and _opens_sentence(item.parse.tokens, s.start):
                openers.append(s)  # "Nah", "Wanna", "Super" at the start of a sentence: decided below
            else:
                spans.append(s)
                known.setdefault(s.text, s.label)
        first.append(spans)
        initial.append(openers)
    for item, spans, openers in zip(parsed, first, initial):
        for s in openers:
            # The small model tags many chat openers as names ("Nah", "Wanna": PERSON; "Time": ORG).
            # Keep one when the batch knows the name, when it is a known first name (as PERSON), or
            # when it is tagged a proper noun and labelled something other than PERSON ("Google").
            if s.text in known:
                spans.append(Span(s.text, known[s.text], s.start, s.end))
            elif is_first_name(s.text):
                spans.append(Span(s.text, "PERSON", s.start, s.end))
            elif item.parse.tokens[s.start].tag in ("NNP", "NNPS") and s.label != "PERSON":
                spans.append(s)
    out: list[NamedFact] = []
    for item, spans in zip(parsed, first):
        covered = {i for s in item.parse.ents for i in range(s.start, s.end)}
        tokens = item.parse.tokens
        i = 0
        while i < len(tokens):
            if tokens[i].tag != "NNP" or i in covered or not tokens[i].text[:1].isupper():
                i += 1
                continue
            j = i
            while j < len(tokens) and tokens[j].tag == "NNP" and j not in covered:
                j += 1
            name = clean_name(" ".join(t.text for t in tokens[i:j]))
            label = known.get(name) or ("PERSON" if j - i <= 2 and is_first_name(tokens[i].text) else None)
            if label is not None and len(name) >= 2:
                spans.append(Span(name, label, i, j))
            i = j
        spans.sort(key=lambda s: s.start)
        out.append(NamedFact(item, tuple(spans)))
    return out
