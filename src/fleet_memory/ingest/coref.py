"""Coreference (offline, rule-based on the spaCy parse): replace personal pronouns by their
referents so each unit stands alone — "She joined Google last year" → "Alice joined Google last
year" — for a whole batch in one left-to-right pass (O(tokens)).

Rules, over the facts of one put in order (the discourse; it restarts for another agent or after
a gap longer than ``reset_after``):

- he/him/his/himself, she/her/hers/herself → the most recently mentioned PERSON of that gender
  (known from a small first-name list or learnt from earlier pronouns), else the most recent one
  of unknown gender; not replaced
  when a compatible PERSON already appears earlier in the same sentence (it already stands alone).
  In a conversation turn the speakers are not candidates (they are "I" and "you").
- it/its, they/them/their → the one ORG / PRODUCT / WORK_OF_ART / EVENT / FAC (for "they": ORG)
  of the previous sentence, only when there is exactly one, that sentence quotes nothing, and the
  pronoun is an argument (subject, object) that is not the subject of "be" or of a verb that says
  how something is ("it is great", "it feels clunky" are left alone).
- they/them/their → the one person the discourse knows to go by "they" ("Jules uses they/them",
  "is non-binary": ``genders.pronouns_in``), with the verb put in the third person ("They've been
  offered …" → "Jules has been offered …"), only when nothing in the message so far names people
  several at once ("the kids", "Sam and Jo") and no ORG of the previous sentence could be meant,
  and its sentence gave "they" to no one else first: an organisation, a team or a plural as a
  subject ("Octopus have put our bill up and they …", then for the whole message) — unless "they"
  is an object of that subject's own clause ("Tesco want to give them a refund") —, a word for
  anyone ("if a customer returns it they …"), a name or a plural before it in any other role ("Saw
  Wet Leg last night, they were …", "ordered the shoes and they sent …"), or a group its verb makes
  plural ("The golf club have been decent, they …").
- In a conversation turn (the episode has a speaker), first-person pronouns are the speaker:
  "I'm swamped" → "Melanie is swamped", "my kids" → "Melanie's kids", with the verb after "I"
  put into the third person ("I love" → "Melanie loves", "I've" → "Melanie has").

Across puts: a put's discourse starts from the agent's memory (``AgentContext.people``, stage
``memory``): the people of the agent's recent units of the same user, same session first, within
the temporal window, so "She joined Google last year." put after "Alice works at Google." becomes
"Alice joined Google last year."; the put's own mentions come later and win. A person memory names
by a gendered role alone is a candidate by that role ("Called my mum." then "She's fine." → "My mum
is fine."), never an entity of the store. The speakers of those units are speakers too (not
candidates in a conversation turn). Never across agents or users (the query filters them).

Guards: a he/she pronoun is left alone when its sentence has a subject of its own before it that is
not a pronoun ("Guido continued his work on Python" keeps "his": the sentence's subject chain
already says whose) or names a person by a role before it ("Went to the GP this morning - he said
…"), someone in general ("if a patient arrives unconscious, he …", "whoever we hire") or by a name
the model gave another label or none ("Had lunch with Mateo from work and he recommended …", Mateo a
GPE: never memory's last man; "Started watching Fleabag, she …"); when it is one of a pair for
anyone ("he or she", "him/her"; not "She and her partner"); inside a quotation ("'she'll be
right'"); after an animal anywhere before it in its sentence ("took the dog out and he ate a crab"),
a vehicle or a plant someone keeps as its sentence's subject ("the ute's done 280,000 km and she
…"); when the sentence says later whom it means in words that are no name ("she gave a penalty — the
referee I mean", "She was brilliant, the new midwife"); a "she" after a ship or a boat in the
message; a later he/she of a message whose first one of that pronoun was left alone, until the
message names a person; a pronoun from memory in a message that tells of the speaker's own encounter
with someone unnamed — an appointment, a test, a lesson, a haircut, a call to a helpline, being
pulled over ("Had my smear test at the surgery - she said …") — unless memory names that person as
someone met for a service ("my physio, Dana", "Dr Okafor"); a pronoun from memory for a person
named, days ago, beside a pet or a boat ("Bartek has a husky" … "he dug up my flowerbed"); and when
memory knows two people who may take it — known to take it, or of unknown pronoun — and the last of
them was named before the temporal window (a day: "Ines moved to Porto." then "She says the flat is
lovely" is Ines even when memory knows Carol; named three days before, with Ingrid known too, or
with Oksana, whose pronoun nothing tells, neither is clearly right). A person's pronoun is what
memory's texts say of them, else their role's or title's, else the given-name list's
(``names.listed_gender``). A name that occurs in the sentence itself is never the referent ("She
lives in Porto now" cannot become "Porto lives in Porto now").

Relatives: in the user's own words (no speaker), a family relation said alone ("my daughter",
"Dad's") gets the name of the one person the user's memory and the put's own words (read up front,
whatever their order) name by it, beside it ("My daughter Aoife's settling in …": ``ingest.kin``,
``_relative``), and that person is a referent of the sentence. The discourse starts again for
another user of the put.

Each referent replaces its first pronoun in a sentence (later ones then read naturally:
"Alice said she would come"); possessives take "'s". Anything uncertain is left as it was:
a wrong replacement is worse than none.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta

from ..language.verbs import AGREE, third_person
from ..providers.nlp import Parsed, Span, Token
from .edited_parse import render, sentence_start
from .genders import (VESSELS, in_general, is_animal, is_kept_thing, is_person_role, names_a_scene,
                      names_a_stranger_scene, only_after_article, only_as_place, other_people, pronouns_in,
                      role_gender, speaks_of_anyone)
from .kin import OWN_WITH_THE, TITLED, is_label, merged_relatives, pastes, relation_of, relatives
from .names import is_listed_name, listed_gender
from .records import AgentContext, CorefFact, CorefText, EntityMention, Episode, NamedFact

__all__ = ["Discourse", "resolve_coreferences"]

_FEMALE = {"she", "her", "hers", "herself"}
_MALE = {"he", "him", "his", "himself"}
_FIRST = {"i", "me", "my", "mine", "myself"}
_IT = {"it", "its"}
_THEY = {"they", "them", "their", "theirs"}
_POSSESSIVE_WORDS = {"hers", "mine", "theirs"}
_THING_LABELS = {"ORG", "PRODUCT", "WORK_OF_ART", "EVENT", "FAC"}
_ARGUMENT_DEPS = {"nsubj", "nsubjpass", "dobj", "pobj", "dative", "poss"}
_BE = {"is", "was", "'s", "be", "been", "are", "were", "'re"}
_SKIP_BETWEEN = {"really", "also", "just", "never", "always", "still", "actually", "totally", "definitely",
                 "even", "only", "finally", "recently", "often", "usually", "sometimes", "already", "too"}


def _gender_of(name: str, learnt: dict[str, str]) -> str | None:
    return learnt[name] if name in learnt else listed_gender(name)


def _possessive(name: str) -> str:
    return name + ("'" if name.endswith("s") else "'s")


class _Discourse:
    def __init__(self) -> None:
        self.persons: list[str] = []  # most recent last
        self.turns: dict[str, int] = {}  # the sentence (or memory unit, below 0) each person was last in
        self.rivals: list[tuple[int, str | None]] = []  # (turn, pronoun) of people who are no candidates
        self.turn = 0
        self.addressed: set[str] = set()  # people spoken to in a conversation turn ("Thanks Alice, …"): "you"
        self.things: list[tuple[str, str]] = []  # non-person entities of the previous sentence
        self.learnt: dict[str, str] = {}
        self.fresh: set[str] = set()  # memory's people named within the temporal window
        self.serving: set[str] = set()  # memory's people named as someone met for a service ("my physio, Dana")
        self.with_pet_or_ship: set[str] = set()  # memory's people named beside a pet or a boat ("Bartek has a husky")
        self.unmarked: set[str] = set()  # memory's names nothing marks as a person's (``RecentMention.marked``)
        self.episode: int | None = None
        self.scene = False  # the episode so far tells of an encounter with a person of its own (``names_a_scene``)
        self.stranger = False  # … with a stranger: a garage, a taxi, a shop (``names_a_stranger_scene``)
        self.vessel = False  # the episode so far names a ship or a boat (``genders.VESSELS``), which takes "she"
        self.withheld: set[str] = set()  # "f"/"m": a she/he of the episode so far left alone though a person was known
        self.plural = False  # the episode so far names people several at once ("the kids", "Sam and Jo") or
        # gave a "they" to an organisation or to anyone ("Octopus have … and they …")
        self.agent: str | None = None
        self.when: datetime | None = None
        self.relatives: Mapping[str, str | None] = {}  # relation → the one person memory and the put name so
        self.others: frozenset[str] = frozenset()  # the first names of the people the episode names
        self.parenting = False  # the episode speaks of children: a bare "Dad" or "Mum" may be the other parent
        self.user: str | None = None

    def person_for(self, gender: str, exclude: frozenset[str] = frozenset()) -> str | None:
        """The antecedent of a he/she pronoun, only when one is clearly right (see the module
        docstring): the latest turn with a person who may take that pronoun must hold exactly one
        person known to take it ("She …" after "Ines moved to Porto" is Ines even when the model
        took Porto for a person; in a memory unit, whose people are stored PERSONs, no other of
        unknown pronoun either), or else one person of unknown pronoun with none known to take it
        earlier; and no rival who may take it (a person named by a role alone, "my dad", or whose
        name the NER missed) from that turn on; from memory, days ago, no one else who may take it
        at all."""
        fits = [n for n in reversed(self.persons) if n not in exclude and _gender_of(n, self.learnt) in (gender, None)]
        if any(_gender_of(n, self.learnt) == gender for n in fits):  # "Porto" stands against no "she" of memory
            fits = [n for n in fits if n not in self.unmarked]
        if not fits:
            return None
        turn = self.turns[fits[0]]
        if any(t >= turn and g in (gender, None) for t, g in self.rivals):
            return None
        together = [n for n in fits if self.turns[n] == turn]
        same = [n for n in together if _gender_of(n, self.learnt) == gender]
        if turn < 0 and fits[0] not in self.fresh and (len(fits) > 1 or any(t < 0 and g in (gender, None)
                                                                          for t, g in self.rivals)):
            return None  # from memory, days ago: two people who may take the pronoun, whichever was last
        if same:  # in memory (turn < 0) the people are stored PERSONs: one of unknown pronoun is a rival too
            unknown = any(_gender_of(n, self.learnt) is None for n in together)
            return same[0] if len(same) == 1 and (turn >= 0 or not unknown) else None
        if len(together) == 1 and not any(_gender_of(n, self.learnt) == gender for n in fits):
            return together[0]
        return None

    def mention(self, name: str, turn: int | None = None) -> None:
        if turn is None:
            self.unmarked.discard(name)  # named again in the put: a person of the discourse
        if name in self.persons:
            self.persons.remove(name)
        self.persons.append(name)
        self.turns[name] = self.turn if turn is None else turn
        del self.persons[:-20]

    def seed(self, context: AgentContext, index: int) -> None:
        """The agent's memory before the put: its people unit by unit with their pronouns
        (``AgentContext.mentions``), else its people each on a turn of their own."""
        mentions = context.mentions.get(index)
        if mentions is None:
            people = context.people.get(index, ())
            for i, name in enumerate(people):
                self.mention(name, i - len(people))
            return
        for m in mentions:
            if not m.name:
                self.rivals.append((-1 - m.unit, m.gender))
                continue
            self.mention(m.name, -1 - m.unit)
            if m.gender is not None:
                self.learnt.setdefault(m.name, m.gender)
            if m.fresh:
                self.fresh.add(m.name)
            if m.serves:
                self.serving.add(m.name)
            if m.with_pet_or_ship:
                self.with_pet_or_ship.add(m.name)
            if not m.marked:
                self.unmarked.add(m.name)


def _resolve_one(parse: Parsed, spans: Sequence[Span], appended: bool, speaker: str | None,
                 state: _Discourse, speakers: frozenset[str]) -> CorefText:
    tokens = parse.tokens[:-1] if appended and parse.tokens else parse.tokens
    persons = [(e.start, e.text) for e in spans if e.label == "PERSON"]
    replacements: dict[int, str] = {}
    referents: list[EntityMention] = []
    used: set[str] = set()
    for i, tok in enumerate(tokens):
        low = tok.text.lower().replace("’", "'")
        if speaker is None and tok.pos in ("NOUN", "PROPN") and (name := _relative(tokens, i, state)):
            if name not in used:  # "my daughter" → "my daughter Aoife", once a sentence
                used.add(name)
                replacements[i] = f"{tok.text} {name}"
                referents.append(EntityMention(name, "PERSON"))
            continue
        if tok.pos != "PRON" and low not in ("i", "me", "my"):
            continue
        if _glued(tokens, i):
            continue  # part of a compound word ("me-time")
        possessive = tok.tag == "PRP$" or low in _POSSESSIVE_WORDS or (low in ("his", "its", "their"))
        if speaker and low in _FIRST:
            replacements[i] = _possessive(speaker) if possessive else speaker
            if low == "i":
                _agree_verb(tokens, i, replacements)
            continue
        if low in _FEMALE or low in _MALE:
            if _own_subject_before(tokens, i) and tok.dep not in _OBJECT_DEPS:
                state.withheld.add("f" if low in _FEMALE else "m")  # a later one is theirs too, unless a name comes
                continue  # "Guido continued his work": the sentence says whose (not "the choir took her on")
            # in a conversation, "she" is rarely one of the people talking (they are "I" and "you")
            talking = (speakers | state.addressed) if speaker else frozenset()
            exclude = talking | _named_in(tokens, state.persons)
            ref = _person_referent(low, i, tokens, persons, state, exclude,
                                   _names_of_others(tokens, spans, feminine=low in _FEMALE))
        elif low in _THEY:
            person, thing = _they_referent(tokens, i, persons, state), _thing_referent(tokens, i, low, spans, state)
            ref = thing if person is None else (person if thing is None else None)
            if person is not None and ref is person and not possessive and tok.dep in ("nsubj", "nsubjpass"):
                _agree_verb(tokens, i, replacements)
        elif low in _IT:
            ref = _thing_referent(tokens, i, low, spans, state)
        else:
            continue
        if ref is None or ref.surface in used:
            continue
        used.add(ref.surface)
        replacements[i] = _possessive(ref.surface) if possessive else ref.surface
        if not possessive:
            _expand_contraction(tokens, i, replacements)
        if ref.surface.startswith(("my ", "our ")):
            state.mention(ref.surface)  # "my mum": a person of the discourse, no entity of the store
        else:
            referents.append(ref)
    if replacements and 0 in replacements and replacements[0][:1].islower():
        replacements[0] = replacements[0][:1].upper() + replacements[0][1:]
    _after_sentence(tokens, spans, [n for _, n in persons], referents, speaker, state)
    return CorefText(render(tokens, replacements), tuple(referents), tuple(sorted(replacements.items())))


def _after_sentence(tokens: Sequence[Token], spans: Sequence[Span], persons: Sequence[str],
                    referents: Sequence[EntityMention], speaker: str | None, state: _Discourse) -> None:
    """What the discourse keeps of a sentence for the next: its people (and who goes by "they"),
    whom it addresses, its rivals, whether it told of an encounter, of people several at once or
    of a ship, and its things."""
    text = render(tokens)
    for name, gender in pronouns_in(text, persons).items():
        if gender == "n":  # "Jules uses they/them": a person who goes by "they"
            state.learnt.setdefault(name, gender)
    for name in persons:
        state.mention(name)
    if persons:  # a pronoun after them may well be theirs
        state.withheld.clear()
    if speaker:
        state.addressed |= _addressed(tokens, spans)
    for ref in referents:
        if ref.label == "PERSON":
            state.mention(ref.surface)
    state.rivals += [(state.turn, g) for g in other_people(text, persons)]
    state.rivals += [(state.turn, role_gender(tokens[j].text)) for j in _unnamed_roles(tokens)]
    state.turn += 1
    state.scene = state.scene or _own_encounter(tokens, tokens, text)
    state.stranger = state.stranger or names_a_stranger_scene(text)
    state.plural = state.plural or len(persons) > 1 or _plural_people(tokens)
    state.vessel = state.vessel or _names_a_vessel(tokens)
    state.things = [] if _quotes_words(tokens) else [(e.text, e.label) for e in spans if e.label != "PERSON"]


# a word beside the relation that may pick out another relative, or the relation used as a modifier
_NOT_THE_ONE = frozenset({"amod", "compound", "nummod", "appos", "nmod", "quantmod", "prep", "relcl", "acl",
                          "xcomp", "npadvmod"})
_WHO_ARGUMENT = frozenset({"nsubj", "nsubjpass", "dobj", "pobj", "poss", "dative", "conj", "attr"})
_NAMING = frozenset({"called", "named", "name", "names", "nickname"})


def _relative(tokens: Sequence[Token], i: int, state: _Discourse) -> str | None:
    """The name of the relative token ``i`` names by the relation alone, when the user's memory and
    the put name one person by it and nothing says there are several (``ingest.kin``): the user's
    ("my daughter", "our son") or said as a name ("Mum's mobile", "Dad's settled in"), as someone
    the clause is about (not "Dad jokes", "Mum guilt", "Dad's Army"). Not a part of a longer word
    ("my daughter-in-law"), not with a word that may pick out another ("my eldest daughter", "my son
    in Australia", "my husband to be"), not a plural, not in someone else's words (a quotation, after
    a colon), not named beside it ("my daughter Aoife") or in the sentence, not in a sentence that
    gives a name ("My son is called Jack"), not in a message that names someone else ("My brother is
    getting married! Kofi met his fiancée at uni"), and a bare "Dad" or "Mum" not in a message about
    children ("Dad's taking the kids to football": the other parent, maybe)."""
    tok = tokens[i]
    relation = relation_of(tok.text)
    if relation is None or tok.tag in ("NNS", "NNPS") or tok.dep not in _WHO_ARGUMENT:
        return None
    if (i + 1 < len(tokens) and not tok.ws and tokens[i + 1].text == "-") or (
            i > 0 and not tokens[i - 1].ws and tokens[i - 1].text == "-") or (
            [t.text.lower() for t in tokens[i + 1:i + 3]] in (["in", "law"], ["in", "-"], ["in", "law's"])):
        return None  # "my daughter-in-law", "my step-dad", "my mother in law"
    name = state.relatives.get(relation)
    kids = [k for j, k in enumerate(tokens) if k.head == i and j != i]
    owned = any(k.dep == "poss" and k.text.lower() in ("my", "our") for k in kids) or (
        tok.text.lower() in OWN_WITH_THE  # "hubby wants …", "the missus": the speaker's own, bare or with "the"
        and all(k.text.lower() in ("the", "my", "our") for k in kids if k.dep in ("det", "poss")))
    titled = (tok.text[:1].isupper() and tok.text.lower() in TITLED and not state.parenting
              and not any(k.dep in ("det", "poss") for k in kids))
    if not name or not (owned or titled) or any(k.dep in _NOT_THE_ONE for k in kids) or _quoted(tokens, i) \
            or any(t.text == ":" and not is_label(render(tokens[sentence_start(tokens, i):j + 1]))
                   for j, t in enumerate(tokens[:i]) if j >= sentence_start(tokens, i)):
        return None
    if i + 1 < len(tokens) and tokens[i + 1].text == "(":
        return None  # "Grandad (the cat lol) hasn't eaten": the brackets say who
    after = [t for t in tokens[i + 1:i + 4] if t.text not in ("'s", "’s", ",")]
    if after and (after[0].pos == "PROPN" or titled and after[0].text[:1].isupper()):
        return None  # "my daughter Aoife", "my son, Jack", "Dad's Army", "Nan's Pantry"
    if titled and [t.text.lower().replace("’", "'") for t in tokens[i + 1:i + 3]] in (["'s", "the"], ["'s", "taxi"]):
        return None  # "Mum's the word", "Mum's taxi again today"
    if i > 1 and tokens[i - 1].text in ("My", "Our") and i - 1 != sentence_start(tokens, i - 1) \
            and tokens[i - 2].text not in ('"', "“", "'", "‘", "(", ":", "-", "—"):
        return None  # "the Our Father", "watching My Father's Eyes": a capitalised "My" inside a sentence, a title
    first = name.split()[0]
    if state.others - {first} or any(t.text == first or t.text.lower() in _NAMING for t in tokens):
        return None
    return name


_CHILDREN = re.compile(r"\b(?:kids?|kiddos?|kiddies|children|child|sons?|daughters?|boys|girls|bab(?:y|ies)|toddlers?"
                       r"|twins|little ones?|little (?:man|fella|one|lady)|wee ones?|the small one|grandkids"
                       r"|grandchild(?:ren)?|nappy|nappies|diapers?|bath ?time|bed ?time|school run)\b", re.IGNORECASE)


def _relatives_told(episodes: Sequence[Episode]) -> dict[tuple[str, str | None], dict[str, str | None]]:
    """What the put itself tells of relatives, read up front (its episodes in any order, once a put:
    ``Discourse.told``): per (agent, user), the relatives its own words name or say there are several
    of (``kin.relatives``)."""
    texts: dict[tuple[str, str | None], list[str]] = {}
    for e in episodes:
        if not e.speaker:
            texts.setdefault((e.agent_id, e.user_id), []).append(e.content)
    return {key: relatives(found) for key, found in texts.items()}


def _people_named(episodes: Sequence[Episode], named: Sequence[NamedFact]) -> dict[int, frozenset[str]]:
    """Per episode of the user's own words, the first names of the people its facts name (PERSON
    spans, and given names of the lists the model tagged a proper noun but no PERSON, not part of a
    longer name: "Oisín met his fiancée at uni", not "Willow Court")."""
    people: dict[int, set[str]] = {}
    for item in named:
        if episodes[item.fact.episode_index].speaker:
            continue
        tokens = item.parsed.parse.tokens
        people.setdefault(item.fact.episode_index, set()).update(
            [first for span in item.spans if span.label == "PERSON"
             and relation_of(first := span.text.split()[0]) is None]  # "Mum" the model calls a person is no other
            + [t.text for k, t in enumerate(tokens) if t.pos == "PROPN" and t.dep != "compound"
               and is_listed_name(t.text) and not (k + 1 < len(tokens) and tokens[k + 1].pos == "PROPN")])
    return {index: frozenset(found) for index, found in people.items()}


_NAMEISH = frozenset({"GPE", "ORG", "WORK_OF_ART", "NORP", "PRODUCT", "FAC", "LOC"})


_UNLABELLED_NAME_DEPS = frozenset({"nsubj", "nsubjpass", "dobj", "dative", "appos", "attr"})


def _names_of_others(tokens: Sequence[Token], spans: Sequence[Span], feminine: bool = False) -> list[int]:
    """Where the sentence names someone or something the model did not call a PERSON, not as a
    place or after an article: "Had lunch with Mateo from work" (the small model's GPE). Before
    "she", a thing after an article counts too: a ship, a car or a country takes "she" ("We went to
    see the Cutty Sark - she's smaller than I expected")."""
    text = render(tokens)
    labelled = [e.start for e in spans if e.label in _NAMEISH and e.text[:1].isupper()
                and not (only_as_place(text, e.text) or (only_after_article(text, e.text) and not feminine))]
    inside = {k for e in spans for k in range(e.start, e.end)}
    return labelled + [k for k, t in enumerate(tokens)  # "Started watching Fleabag, she keeps …": a name no label has
                       if t.pos == "PROPN" and t.text[:1].isupper() and t.text != "I" and k not in inside
                       and k != sentence_start(tokens, k) and t.dep in _UNLABELLED_NAME_DEPS
                       and not only_as_place(text, t.text)]


def _person_referent(low: str, i: int, tokens: Sequence[Token], persons: Sequence[tuple[int, str]],
                     state: _Discourse, exclude: frozenset[str], others: Sequence[int] = ()) -> EntityMention | None:
    """The PERSON a he/she pronoun at token ``i`` stands for, or ``None`` when a compatible person
    already appears earlier in the sentence (whose gender is then learnt) or none is known."""
    gender = "f" if low in _FEMALE else "m"
    earlier = [n for s, n in persons if s < i and _gender_of(n, state.learnt) in (None, gender)]
    if earlier:
        state.learnt.setdefault(earlier[-1], gender)
        return None
    if gender in state.withheld:
        return None  # "the ute's … she's done 280,000 km. … sell her?": the first one's referent, whoever that is
    ref = _from_memory(gender, i, tokens, state, exclude, others)
    if ref is None:
        state.withheld.add(gender)
    return ref


def _from_memory(gender: str, i: int, tokens: Sequence[Token], state: _Discourse, exclude: frozenset[str],
                 others: Sequence[int]) -> EntityMention | None:
    """The person of memory or of earlier sentences the he/she at token ``i`` stands for, unless
    something in the message may be its referent or no candidate is clearly right."""
    if any(t.pos in ("NOUN", "PROPN", "PRON") and speaks_of_anyone(t.text) for t in tokens[:i]):
        return None  # "Went to the GP this morning - he said …", "if a patient arrives …, he": a person of its own
    if _either(tokens, i) or _quoted(tokens, i):
        return None  # "he or she", "his/her": anyone's; "'she'll be right'": someone else's words
    if any(t.dep == "nsubj" and is_kept_thing(t.text) or t.pos == "NOUN" and is_animal(t.text)
           for t in tokens[sentence_start(tokens, i):i]):
        return None  # "my gelding has been lame on his front left", "took the dog out and he ate …": the animal's
    if _said_after(tokens, i):
        return None  # "She was brilliant, the new midwife", "he was rude, the claims handler I mean"
    if any(start < i for start in others):
        return None  # "Had lunch with Mateo and he recommended …": Mateo, whatever the model's label
    if gender == "f" and (state.vessel or _names_a_vessel(tokens[:i])):
        return None  # "The ship was massive … she rolled": a ship takes "she"
    name = state.person_for(gender, exclude)
    if name is None or (state.turns[name] < 0 and (name not in state.serving or state.stranger
                                                   or names_a_stranger_scene(render(tokens)))  # the garage's "he"
                        and (state.scene or _own_encounter(tokens[:i], tokens))):
        return None  # "Had my check-up - she said …": the encounter's own person, not a friend from memory
    if state.turns[name] < 0 and name in state.with_pet_or_ship and name not in state.fresh:
        return None  # "Bartek has a husky", weeks later "he dug up my flowerbed": the dog, maybe
    state.learnt.setdefault(name, gender)
    return EntityMention(name, "PERSON")


_MARKS = frozenset({",", "—", "–", "-", "(", ";"})
_NOUN_PHRASE_TAGS = frozenset({"DT", "PRP$", "JJ", "JJR", "JJS", "NN", "NNS", "NNP", "NNPS", "CD", "POS", "HYPH"})
_MEAN = frozenset({"mean", "meant"})


def _said_after(tokens: Sequence[Token], i: int) -> bool:
    """Later in its sentence the speaker says whom the pronoun at token ``i`` stands for, in words
    that are no name: the pronoun set right with "I mean" ("she gave a penalty for a handball — the
    referee I mean", "He was so rude on the phone, the claims handler from the insurer I mean"), or
    a person's role set off by a mark at the sentence's end ("She was brilliant, the new midwife").
    Memory's person is not the one meant."""
    end = next((j for j in range(i + 1, len(tokens)) if tokens[j].tag == "."), len(tokens))
    for j in range(i + 2, end - 1):
        if tokens[j].text.lower() == "i" and tokens[j + 1].text.lower() in _MEAN and tokens[j - 1].pos == "NOUN":
            return True  # "… the referee I mean"
    for j in range(i + 1, end):
        if tokens[j].text not in _MARKS:
            continue
        k = j + 1
        while k < end and tokens[k].tag in _NOUN_PHRASE_TAGS:
            k += 1
        head = tokens[k - 1]
        if k > j + 1 and k == end and head.pos == "NOUN" and speaks_of_anyone(head.text):
            return True  # "…, the new midwife."
    return False


_GREETINGS = {"thanks", "thank", "hi", "hey", "hello", "dear", "bye", "cheers", "morning", "night"}


def _addressed(tokens: Sequence[Token], spans: Sequence[Span]) -> set[str]:
    """The PERSONs a sentence speaks to: after a greeting ("Thanks Alice", "hi Bob") or opening it
    with a comma ("Alice, …")."""
    out = set()
    for e in spans:
        greeted = e.start > 0 and tokens[e.start - 1].text.lower() in _GREETINGS
        opening = e.start == 0 and e.end < len(tokens) and tokens[e.end].text == ","
        if e.label == "PERSON" and (greeted or opening):
            out.add(e.text)
    return out


_OBJECT_DEPS = ("dobj", "obj", "dative", "iobj")  # an object is never its own clause's subject
_ARGUMENT_DEPS = ("nsubj", "nsubjpass", "dobj", "obj", "dative", "pobj", "conj")


def _unnamed_roles(tokens: Sequence[Token]) -> list[int]:
    """Where a sentence names one person by a role alone, as someone it is about ("I saw a locum GP
    about my cough today." then "She said it's viral": she is the GP, never memory's Saoirse); not a
    role said of someone ("Ravi is a nurse", "works as a nurse") nor one beside a name ("my cousin
    Ravi"); a plural counts, as one of them may be "he" ("The paramedics were brilliant. He said …")."""
    out = []
    for i, t in enumerate(tokens):
        if t.pos != "NOUN" or t.dep not in _ARGUMENT_DEPS or not is_person_role(t.text):
            continue
        named = i + 1 < len(tokens) and tokens[i + 1].pos == "PROPN" or any(
            k.head == i and k.pos == "PROPN" and k.dep in ("appos", "compound") for k in tokens)
        as_what = t.dep == "pobj" and t.head < len(tokens) and tokens[t.head].text.lower() == "as"
        if not (named or as_what):
            out.append(i)
    return out


def _own_subject_before(tokens: Sequence[Token], i: int) -> bool:
    """True when a name or a person's role before token ``i``, in its sentence, is a subject (not a
    pronoun, not a thing: "The blood test results came back and he has type 2 diabetes" says nothing
    of whom; nor the subject of a sentence before it that the splitter kept in one piece, "christmas
    went fine!! he was super sweet"), nor a bare word in lower case the model took for a name ("reckon
    I stuffed up — just found out she's coeliac"; "the locksmith took two hours … she" is a subject)."""
    start = sentence_start(tokens, i)

    def named(j: int, t: Token) -> bool:
        return t.text[:1].isupper() or any(k.head == j and k.dep in ("det", "poss") for k in tokens[start:i])
    return any(t.dep in ("nsubj", "nsubjpass") and (t.pos == "PROPN" and named(j, t)
                                                    or t.pos == "NOUN" and is_person_role(t.text))
               for j, t in enumerate(tokens[start:i], start))


def _plural_people(tokens: Sequence[Token]) -> bool:
    """The tokens name people several at once: a plural word for people ("the kids", "my parents",
    "the guests"), whom "they" may mean."""
    return any(t.tag in ("NNS", "NNPS") and speaks_of_anyone(t.text) for t in tokens)


# what a name or a plural before "they" in its sentence, not its subject, stands as: it may be the one
# "they" means (a subject is read on its own: "Octopus have put our bill up and they …")
_THEY_MAY_BE = frozenset({"dobj", "pobj", "dative", "attr", "appos", "conj"})
_PLURAL_AGREEMENT = frozenset({"have", "are", "were", "'ve", "'re"})


def _agrees_as_plural(tokens: Sequence[Token], j: int) -> bool:
    """Token ``j`` is a singular noun its clause treats as a group ("The golf club have been decent",
    "the council are useless"): its verb or auxiliary takes the plural."""
    t = tokens[j]
    if t.pos != "NOUN" or t.tag != "NN" or t.dep not in ("nsubj", "nsubjpass"):
        return False
    verb = tokens[t.head]
    return verb.text.lower() in _PLURAL_AGREEMENT or any(
        k.head == t.head and k.dep in ("aux", "auxpass") and k.text.lower() in _PLURAL_AGREEMENT for k in tokens)


def _they_referent(tokens: Sequence[Token], i: int, persons: Sequence[tuple[int, str]],
                   state: _Discourse) -> EntityMention | None:
    """The one person the discourse knows to go by "they" ("Jules uses they/them"), for the
    they/them/their at token ``i`` — only when nothing in the message so far names people several
    at once, and nothing before it in the sentence names another person, someone in general or a
    subject "they" may stand for (an organisation, a team, a plural), nor opens a quotation: "they"
    is mostly plural."""
    if state.plural or _plural_people(tokens[:i]) or any(start < i for start, _ in persons) or _quoted(tokens, i):
        return None
    start, clause = sentence_start(tokens, i), _clause_of(tokens, i)
    if any(t.dep in ("nsubj", "nsubjpass") and (t.pos == "PROPN" or t.tag in ("NNS", "NNPS"))
           and not (tokens[i].dep in _BOUND_DEPS and t.head == clause) for t in tokens[start:i]):
        state.plural = True  # "Octopus have put our bill up and they …", "Mayo lost again, they …": theirs,
        return None  # and so is a "they" later in the message ("… asking them to justify it")
    if any(t.pos in ("NOUN", "PRON") and in_general(t.text) for t in tokens[start:i]):
        state.plural = True  # "if someone needs something urgent they …", "if a customer returns it they …"
        return None
    if any(t.dep in _THEY_MAY_BE and (t.pos == "PROPN" and t.text[:1].isupper() or t.tag in ("NNS", "NNPS"))
           for t in tokens[start:i]) or any(_agrees_as_plural(tokens, j) for j in range(start, i)):
        return None  # "Saw Wet Leg, they were …", "ordered the shoes and they sent …", "The club have …"
    here = _named_in(tokens, state.persons)
    named = [n for n in state.persons if _gender_of(n, state.learnt) == "n" and n not in here]
    return EntityMention(named[0], "PERSON") if len(named) == 1 else None


_HE_OR_SHE = _FEMALE | _MALE
_WE = {"we", "us", "our"}


def _own_encounter(part: Sequence[Token], sentence: Sequence[Token], said: str | None = None) -> bool:
    """``part`` of the sentence (written ``said``, when the caller has it) tells of the speaker's own
    encounter with someone unnamed (``genders.names_a_scene``): the sentence says "I", "my", "we" or
    its main verb has no subject ("Had my check-up", "Finally got the haircut"); "The blood test
    results came back and he …" is about him."""
    if not names_a_scene(render(part) if said is None else said):
        return False
    return any(t.text.lower() in _FIRST or t.text.lower() in _WE for t in sentence) or any(
        t.dep == "ROOT" and t.pos in ("VERB", "AUX")
        and not any(k.head == j and k.dep in ("nsubj", "nsubjpass", "expl") for k in sentence)
        for j, t in enumerate(sentence))


def _names_a_vessel(tokens: Sequence[Token]) -> bool:
    """A ship or a boat among the tokens (``genders.VESSELS``): it takes "she"."""
    return any(t.pos == "NOUN" and t.text.lower() in VESSELS for t in tokens)


def _either(tokens: Sequence[Token], i: int) -> bool:
    """The pronoun at ``i`` is one of a pair for anyone: "he or she", "him/her", "she or he", "his or
    her" — the two in one case: "She and her partner are moving" is one person and her partner."""
    def pair(a: int, b: int) -> bool:
        return (0 <= a and b < len(tokens) and tokens[a].text.lower() in _HE_OR_SHE
                and tokens[b].text.lower() in _HE_OR_SHE and tokens[a + 1].text.lower() in ("or", "/", "and")
                and tokens[a].tag == tokens[b].tag)
    return pair(i, i + 2) or pair(i - 2, i) or "/" in tokens[i].text


_QUOTES = frozenset({'"', "“", "”", "'", "‘", "’", "``", "''"})
_BOUND_DEPS = (*_OBJECT_DEPS, "pobj")  # "Tesco want to give them a refund": not Tesco, whose clause it is


def _clause_of(tokens: Sequence[Token], i: int) -> int:
    """The verb of the clause token ``i`` is an argument of, through a preposition and the verbs a
    subject controls ("want to give them" is "want"'s clause)."""
    k = tokens[i].head
    if tokens[k].dep == "prep" and tokens[k].head != k:
        k = tokens[k].head
    while tokens[k].dep == "xcomp" and tokens[k].head != k:
        k = tokens[k].head
    return k


def _quoted(tokens: Sequence[Token], i: int) -> bool:
    """Token ``i`` lies inside a quotation: after a quote mark that opens one (set off before, glued
    to the word after) and before one that closes it (glued to the word before): "the tradie reckons
    it's 'she'll be right', but …". An owner's "weeks’", "'til", "'90s" or 65" open nothing closed."""
    start, opened = sentence_start(tokens, i), False
    for j in range(start, i):
        if tokens[j].text in _QUOTES:
            opening = not tokens[j].ws and (j == start or bool(tokens[j - 1].ws))
            opened = opening or (opened and bool(tokens[j - 1].ws))  # glued to the word before: it closes
    return opened and any(t.text in _QUOTES and not tokens[k - 1].ws for k, t in enumerate(tokens[i + 1:], i + 1))


def _quotes_words(tokens: Sequence[Token]) -> bool:
    """The sentence quotes someone's words, a clause between quote marks (or before a closing one,
    after an opening one, when the quotation runs over several sentences): "… twice.'" after "'Zara
    is a data engineer." — not a title ("Have you read 'The Lean Startup'?") nor an owner's "weeks'"."""
    opened = None
    for k, t in enumerate(tokens):
        if t.text not in _QUOTES or (k and not tokens[k - 1].ws and tokens[k - 1].text[-1:] == "s"):
            continue
        if k == 0 or tokens[k - 1].ws:  # set off before: it opens
            opened = k
            continue
        part, opened = tokens[(opened + 1 if opened is not None else 0):k], None
        if any(p.pos in ("VERB", "AUX") for p in part):
            return True
    return opened is not None and any(p.pos in ("VERB", "AUX") for p in tokens[opened + 1:])


def _named_in(tokens: Sequence[Token], names: Sequence[str]) -> frozenset[str]:
    """The known names whose words all occur in the sentence."""
    words = {t.text.lower() for t in tokens}
    return frozenset(n for n in names if n.split() and all(w.lower() in words for w in n.split()))


# verbs that say how the subject is, like "be": "it" before them is rarely the thing just named
_LINKING = frozenset({"feel", "feels", "felt", "seem", "seems", "seemed", "look", "looks", "looked", "sound", "sounds",
                      "sounded", "appear", "appears", "appeared"})


def _thing_referent(tokens: Sequence[Token], i: int, low: str, spans: Sequence[Span],
                    state: _Discourse) -> EntityMention | None:
    """The one thing (it) or ORG (they) of the previous sentence, when the pronoun at token ``i``
    is an argument other than the subject of "be" and the sentence names no such thing before it."""
    tok = tokens[i]
    wanted = _THING_LABELS if low in _IT else {"ORG"}
    things = [(text, label) for text, label in state.things if label in wanted]
    if len(things) != 1 or any(e.start < i and e.label in wanted for e in spans):
        return None
    if tok.dep not in _ARGUMENT_DEPS:
        return None
    head = tokens[tok.head] if 0 <= tok.head < len(tokens) else tok
    if tok.dep in ("nsubj", "nsubjpass") and (head.text.lower() in _BE or head.text.lower() in _LINKING):
        return None  # "It was packed", "It feels clunky": how something is, not what the thing did
    text, label = things[0]
    return EntityMention(text, label)


def _glued(tokens: Sequence[Token], i: int) -> bool:
    before = i > 0 and not tokens[i - 1].ws and tokens[i - 1].text in ("-", "/")
    after = i + 1 < len(tokens) and not tokens[i].ws and tokens[i + 1].text in ("-", "/")
    return before or after


# participles that follow "'s" as a state ("is"), not as a perfect ("has")
_STATE_PARTICIPLES = frozenset({"supposed", "meant", "married", "engaged", "based", "called", "named", "due"})


def _expand_contraction(tokens: Sequence[Token], i: int, replacements: dict[int, str]) -> None:
    """"He's a climber" → "Kwame is a climber", not "Kwame's a climber" (which reads as a possessive)."""
    if i + 1 >= len(tokens) or tokens[i].ws:
        return
    low = tokens[i + 1].text.lower().replace("’", "'")
    if low == "'s":
        after = tokens[i + 2] if i + 2 < len(tokens) else None
        perfect = after is not None and after.tag == "VBN" and after.text.lower() not in _STATE_PARTICIPLES
        replacements[i + 1] = " has" if perfect else " is"
    elif low in ("'ll", "'d"):
        replacements[i + 1] = " " + AGREE[low]


def _agree_verb(tokens: Sequence[Token], i: int, replacements: dict[int, str]) -> None:
    """Put the verb right after a replaced "I" or "they" (adverbs skipped) into the third person."""
    j = i + 1
    while j < len(tokens) and tokens[j].text.lower() in _SKIP_BETWEEN:
        j += 1
    if j >= len(tokens):
        return
    verb = tokens[j]
    low = verb.text.lower().replace("’", "'")
    if low.startswith("'"):
        if low in AGREE:
            replacements[j] = " " + AGREE[low] if not tokens[j - 1].ws else AGREE[low]
        return
    if verb.tag == "VBP" and verb.pos in ("VERB", "AUX") or low == "were":
        replacements[j] = third_person(verb.text)


class Discourse:
    """The discourse state of one put, carried from one window of its facts to the next (the
    pipeline resolves a long put window by window, in order)."""

    def __init__(self) -> None:
        self.state = _Discourse()
        self.told: dict[tuple[str, str | None], dict[str, str | None]] | None = None  # ``_relatives_told``


def resolve_coreferences(
    episodes: Sequence[Episode],
    named: Sequence[NamedFact],
    *,
    reset_after: timedelta = timedelta(hours=24),
    context: AgentContext | None = None,
    discourse: Discourse | None = None,
    name_relatives: bool = True,
) -> list[CorefFact]:
    """Each named fact (from ``ner``) with its text after coreference, in order. Self-contained
    facts (from an LLM) pass through unchanged. ``context``: the agent's memory (see above);
    ``discourse`` continues the state of earlier facts of the same put (and keeps it for the next
    call: the pipeline resolves a long put window by window); ``name_relatives``: write a relative's name
    beside the relation (``IngestConfig.name_relatives``)."""
    context = context or AgentContext()
    holder = discourse if discourse is not None else Discourse()
    state = holder.state
    batch_speakers = frozenset(e.speaker for e in episodes if e.speaker) | frozenset(
        item.fact.speaker for item in named if item.fact.speaker)
    if holder.told is None:  # the put's own words, read once for all its windows
        holder.told = _relatives_told(episodes) if name_relatives else {}
    own, people = holder.told, _people_named(episodes, named) if name_relatives else {}
    out: list[CorefFact] = []
    for item in named:
        fact = item.fact
        episode = episodes[fact.episode_index]
        if state.agent != episode.agent_id or state.user != episode.user_id or (
            state.when is not None and abs(episode.event_date - state.when) > reset_after
        ):  # another user's discourse is not this one's ("my daughter" is someone else's)
            state = holder.state = _Discourse()
            state.agent, state.user = episode.agent_id, episode.user_id
            state.seed(context, fact.episode_index)
        state.when = episode.event_date
        if state.episode != fact.episode_index:
            state.episode, state.scene, state.vessel, state.plural = fact.episode_index, False, False, False
            state.withheld, state.stranger = set(), False
            state.relatives = merged_relatives(context.relatives.get(fact.episode_index, {}),
                                               own.get((episode.agent_id, episode.user_id), {}))
            state.others = people.get(fact.episode_index, frozenset())
            state.parenting = _CHILDREN.search(episode.content) is not None or bool(
                {"son", "daughter", "stepson", "stepdaughter"} & state.relatives.keys())
            if pastes(episode.content):  # someone else's words across its sentences: no name written at all
                state.relatives = {}
        speakers = batch_speakers | context.speakers.get(fact.episode_index, frozenset())
        if fact.self_contained:
            out.append(CorefFact(item, CorefText(fact.text)))
            for e in item.spans:
                if e.label == "PERSON":
                    state.mention(e.text)
            state.turn += 1
            continue
        text = _resolve_one(item.parsed.parse, item.spans, item.parsed.appended, fact.speaker, state, speakers)
        out.append(CorefFact(item, text))
    return out
