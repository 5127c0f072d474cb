"""Named entities of each parsed fact, from the one spaCy parse of the batch.

Kept labels: PERSON, ORG, GPE, LOC, FAC, NORP, PRODUCT, EVENT, WORK_OF_ART (numbers, dates,
money … are not entities). Spans are cleaned ("the Louvre" → "Louvre", "Alice's" → "Alice") and
dropped when they hold no capital letter (the small model tags "the kids & work" as ORG) or, outside
places, a comma ("ya, Melanie"). A one-word span that opens the sentence ("Nah", "Wanna" as PERSON,
"Time" as ORG in chat) is kept only when the batch knows that name from elsewhere, when it is a
known first name (then as PERSON), when it is tagged a proper noun with a label other than PERSON,
or when it is a PERSON, a listed given name (``names.is_listed_name``) and the subject of a verb
("Gareth is pretty reasonable", "Zoë and I are thinking of …"; not "Slideshow's nearly done",
"Convert 180C to Fahrenheit", "Dana, thanks!"). An acronym is no person ("his CV", "the GP" as
PERSON): a PERSON of at most four capitals is an ORG.

The small model misses names it saw elsewhere ("Alice loves hiking" has no PERSON span while
"Alice works at Google" has one). So, in one pass over the batch, a run of proper nouns that no
span covers becomes an entity when the same name was recognised elsewhere in the batch (a long put
is resolved window by window: in this window or an earlier one of the same put) (its label
is reused), is a speaker of the conversation (PERSON), or starts with a known first name (PERSON:
the short list, or, for a run of one or two words, any given name of ``names.first_names.tsv``).
Speakers of conversation turns are PERSON entities of their turns (added when units are
assembled). A listed given name the model calls a PERSON once in an agent's part of the batch is a
PERSON wherever else it labels it there ("paired with Tomasz and Zainab, … Zainab the lit review":
GPE, then PERSON).

The agent's memory is a gazetteer (``AgentContext.known``: stored entities the put names): a name
the agent already knows is recognised with its stored label even when the model misses it (any
capitalised token, whatever its tag: "Ines" tagged a plural noun) or labels it otherwise ("Carol"
as ORG once it is known as PERSON); a known first name, and a speaker of the put, is a PERSON
whatever either says ("Marcus" as GPE in a chat Marcus takes part in). Junk is
refused before anything else (``junk.is_junk_name``: code identifiers, URL and Markdown fragments,
shouted legal words). A PERSON right after "in" that nobody knows as a person is a place ("in
Ancoats"). O(tokens).
"""

from __future__ import annotations

from collections.abc import Sequence

from collections.abc import Mapping

from ..naming import normalize_name
from ..providers.nlp import Span, Token
from .junk import is_junk_name
from .names import is_acronym, is_first_name, is_listed_name
from .records import AgentContext, Episode, NamedFact, ParsedFact

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


def _kept(span: Span, tokens: Sequence[Token], sentence: str, gazetteer: Mapping[str, str],
          speakers: frozenset[str] = frozenset()) -> Span | None:
    if span.label not in KEPT_LABELS:
        return None
    name = clean_name(span.text)
    if len(name) < 2 or not any(c.isupper() for c in name) or is_junk_name(name, sentence):
        return None
    label = "PERSON" if name in speakers else _known_label(name, gazetteer)
    if label is not None and label != span.label:
        return Span(name, label, span.start, span.end)
    if label is None and span.label == "PERSON" and span.start > 0 and \
            tokens[span.start - 1].text.lower() == "in":
        return Span(name, "GPE", span.start, span.end)  # "in Ancoats": a place the small model took for a person
    if "," in name and span.label not in ("GPE", "LOC", "FAC"):
        return None  # "ya, Melanie" (ORG): a vocative swallowed into a span
    if span.label == "PERSON" and is_acronym(name):
        return Span(name, "ORG", span.start, span.end)  # "his CV", "the GP": an acronym, no person
    if span.label == "PERSON" and " " not in name and name[:1].islower():
        return Span(name, "PRODUCT", span.start, span.end)  # "her new iPad", "on eBay": a brand's spelling
    if span.label == "PERSON" and name.rstrip(".") in _CALENDAR_SHORT:
        return Span(name, "DATE", span.start, span.end)  # "Wed Cubs, Thu swimming": a day, no person
    return Span(name, span.label, span.start, span.end)


# days and months written short, none of them a given name ("Jan" is one, "Sun" a surname)
_CALENDAR_SHORT = frozenset("Mon Tue Tues Wed Weds Thu Thur Thurs Fri Feb Apr Aug Sept Oct Nov Dec".split())


def _known_label(name: str, gazetteer: Mapping[str, str]) -> str | None:
    """The label the agent's memory gives ``name`` (a known first name is a PERSON), or ``None``."""
    if is_first_name(name.split()[0]) and len(name.split()) <= 2:
        return "PERSON"
    label = gazetteer.get(normalize_name(name))
    return label if label in KEPT_LABELS else None


def _subject_of_a_verb(tokens: Sequence[Token], i: int) -> bool:
    """The token is the subject of a verb and no punctuation follows it: "Gareth is pretty
    reasonable", "Zoë and I are thinking of …" — not "Nah, I'm good" nor "Dana, thanks!"."""
    head = tokens[tokens[i].head]
    after = tokens[i + 1] if i + 1 < len(tokens) else None
    return (tokens[i].dep in ("nsubj", "nsubjpass") and head.pos in ("VERB", "AUX")
            and after is not None and after.pos != "PUNCT")


def _given_name(name: str) -> str | None:
    """PERSON for a proper-noun run the model gave no label at all whose first word is a listed
    given name ("Dmitri keeps telling me …", "Esperanza comes in mornings"), at most two words."""
    words = name.split()
    return "PERSON" if 0 < len(words) <= 2 and is_listed_name(words[0]) else None


def _opens_sentence(tokens: Sequence[Token], start: int) -> bool:
    return all(not t.text[:1].isalnum() for t in tokens[:start])


def find_entities(episodes: Sequence[Episode], parsed: Sequence[ParsedFact],
                  context: AgentContext | None = None, known: dict[str, str] | None = None) -> list[NamedFact]:
    """Each parsed fact with its entity spans (same order), cleaned and completed as described above.
    ``known`` (name → label) carries the names of earlier windows of the same put, and is updated."""
    context = context or AgentContext()
    known = known if known is not None else {}
    for episode in episodes:
        if episode.speaker:
            known.setdefault(clean_name(episode.speaker), "PERSON")
    for item in parsed:
        if item.fact.speaker:
            known.setdefault(clean_name(item.fact.speaker), "PERSON")
    speakers = frozenset(clean_name(who) for who in ([e.speaker for e in episodes] + [i.fact.speaker for i in parsed])
                         if who)  # people, whatever NER says
    first: list[list[Span]] = []
    initial: list[list[Span]] = []
    for item in parsed:
        spans, openers = [], []
        gazetteer = context.gazetteer(episodes[item.fact.episode_index].agent_id)
        for s in (_kept(e, item.parse.tokens, item.fact.text, gazetteer, speakers) for e in item.parse.ents):
            if s is None:
                continue
            if s.end - s.start == 1 and _opens_sentence(item.parse.tokens, s.start):
                openers.append(s)  # "Nah", "Wanna", "Super" at the start of a sentence: decided below
            else:
                spans.append(s)
                known.setdefault(s.text, s.label)
        first.append(spans)
        initial.append(openers)
    _one_label_for_people([episodes[item.fact.episode_index].agent_id for item in parsed], first)
    for item, spans, openers in zip(parsed, first, initial):
        gazetteer = context.gazetteer(episodes[item.fact.episode_index].agent_id)
        for s in openers:
            # The small model tags many chat openers as names ("Nah", "Wanna": PERSON; "Time": ORG).
            # Keep one when the batch knows the name, when it is a known first name (as PERSON), or
            # when it is tagged a proper noun and labelled something other than PERSON ("Google").
            if s.text in known:
                spans.append(Span(s.text, known[s.text], s.start, s.end))
            elif (label := _known_label(s.text, gazetteer)) is not None:
                spans.append(Span(s.text, label, s.start, s.end))
            elif item.parse.tokens[s.start].tag in ("NNP", "NNPS") and s.label != "PERSON":
                spans.append(s)
            elif s.label == "PERSON" and is_listed_name(s.text) and _subject_of_a_verb(item.parse.tokens, s.start):
                spans.append(s)
    out: list[NamedFact] = []
    for item, spans in zip(parsed, first):
        gazetteer = context.gazetteer(episodes[item.fact.episode_index].agent_id)
        spans.extend(_unlabelled_names(item, spans, known, gazetteer))
        spans.sort(key=lambda s: s.start)
        out.append(NamedFact(item, tuple(spans)))
    return out


def _one_label_for_people(agents: Sequence[str], spans: list[list[Span]]) -> None:
    """A given name of the lists that the model calls a PERSON once in an agent's part of the batch
    is a PERSON wherever else it labels it otherwise there ("paired with Tomasz and Zainab, …
    Zainab the lit review": GPE, then PERSON); ``spans`` in place, per fact (``agents``: each fact's)."""
    people = {(agent, s.text) for agent, found in zip(agents, spans) for s in found
              if s.label == "PERSON" and is_listed_name(s.text.split()[0])}
    for agent, found in zip(agents, spans):
        found[:] = [Span(s.text, "PERSON", s.start, s.end) if (agent, s.text) in people else s for s in found]


def _unlabelled_names(item: ParsedFact, spans: Sequence[Span], known: Mapping[str, str],
                      gazetteer: Mapping[str, str]) -> list[Span]:
    """Runs of proper nouns no kept span covers that the batch or the agent knows, or that start
    with a first name; a capitalised token of another tag counts when the agent knows it."""
    covered = {i for s in item.parse.ents for i in range(s.start, s.end)}
    covered |= {i for s in spans for i in range(s.start, s.end)}
    tokens = item.parse.tokens

    def proper(k: int) -> bool:
        tok = tokens[k]
        if k in covered or not tok.text[:1].isupper():
            return False
        return tok.tag in ("NNP", "NNPS") or (tok.pos not in ("PRON", "DET") and (
            normalize_name(tok.text) in gazetteer or (k > 0 and is_first_name(tok.text)) or
            (k == 0 and is_listed_name(tok.text) and tok.dep in ("nsubj", "nsubjpass"))))

    found: list[Span] = []
    i = 0
    while i < len(tokens):
        if not proper(i):
            i += 1
            continue
        j = i
        while j < len(tokens) and proper(j):
            j += 1
        name = clean_name(" ".join(t.text for t in tokens[i:j]))
        label = known.get(name) or _known_label(name, gazetteer) or _given_name(name)
        if label is not None and len(name) >= 2 and not is_junk_name(name, item.fact.text):
            found.append(Span(name, label, i, j))
        i = j
    return found
