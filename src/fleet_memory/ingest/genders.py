"""Which pronoun a person takes, learnt from how a text refers to them, and the people a text names
only by a role. Pure regex work over a unit's text (no parse: the agent's recent units are read
for every put), for coreference across puts (``ingest.coref``).

- ``pronouns_in(text, names)``: for each name, ``"f"`` or ``"m"`` when the text says so: a
  gendered role right before or after it ("my sister Priya", "Declan, my brother", "Mr Hughes");
  else, for the first name of the text only (the likely subject), the first he/him/his or
  she/her/hers after it with no other name between ("My cousin Ravi, he …", "Anna introduced me
  to her friend Beth" → Anna is female). Counter-examples kept out: in "Tom told Sarah about his
  trip" the pronoun follows Sarah, but Sarah is not the text's first name, and Tom has Sarah
  between him and "his", so nothing is learnt; a neutral role ("my cousin", "our plumber",
  "her friend Beth") says nothing.
- ``named_by_role(text)`` and ``unnamed_people(text)``: the people a text names beside a
  person's role ("my mother-in-law Keiko", "Dr Vasquez, my dentist", "a guy called Giorgos"),
  whatever the NER made of the name, and those it names by a gendered role alone ("my mum"). A
  role is a word only a person is called by (``is_person_role``: "my trip to Paris", "my shift
  next Thursday" name no one); a role used as a possessor ("my son's teacher") is not counted:
  the sentence is about the teacher, though "my partner's mum Hiroko" names the mum; a title
  names a person ("Mrs Adeyemi"), and so does a relation written as one ("Nana Beatriz"); a role
  ends where the word does: "my brother-in-law Kwame" names one man, not Kwame and a brother.
  Memory (``ingest.memory``) takes them as candidates.
- ``other_people(text, names)``: the people a text mentions besides ``names`` (the PERSON
  entities found in it), by those two readings ("my dad and my uncle Frank" → a man besides
  Frank; "My mate Jake and my cousin Tom" with only Tom found → someone, of unknown pronoun):
  rivals for a pronoun within a put, never antecedents.
- ``only_as_place(text, name)``: every mention of the name follows a preposition of place ("a
  flat in Bonfim"; not "bumped into Theo"): a model's PERSON that the text uses as a place is no
  candidate.
- ``only_as_topic(text, name)``: every mention follows "on" or "about" ("my essay on Dickens"):
  someone written about, no candidate either.
- Where a pronoun from memory is no one of memory's: ``names_a_scene`` (the message tells of an
  encounter that brings a person of its own: an appointment, a test, a lesson, a haircut, a call
  to the airline, a delivery), ``serves`` (memory names the person beside a service role or with
  such a title: "my physio, Dana", "Dr Okafor" — who may be that encounter's person),
  ``names_a_pet_or_a_ship`` (an animal or a boat beside the person takes he or she as readily),
  ``speaks_of_anyone`` (a word for someone in general: "a patient", "whoever") and ``VESSELS``.
- ``pronouns_in`` also gives ``"n"`` for a person who goes by "they" ("Jules uses they/them",
  "is non-binary"), unless another name stands just before ("Charlie and Rowan - both use …").

The readings of one text are kept (``_KEPT`` texts, least recently used out): a put's memory
stage reads the agent's same recent units again for every put.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence

from ..naming import UPPER
from .names import is_listed_name

__all__ = ["FEMALE_ROLES", "MALE_ROLES", "PERSON_ROLES", "pronouns_in", "other_people", "named_by_role",
           "only_as_place", "only_after_article", "is_person_role", "referred_by_subject", "role_gender",
           "refers_by_pronoun", "name_words", "serves", "names_a_scene", "names_a_stranger_scene",
           "names_a_pet_or_a_ship", "only_as_topic",
           "speaks_of_anyone", "VESSELS", "is_animal", "is_kept_thing", "in_general", "title_gender",
           "unnamed_people", "with_title", "without_title"]

FEMALE_ROLES = frozenset("""sister mum mom mother aunt auntie niece daughter wife girlfriend grandma granny nan
    grandmother nana nanna stepmum stepmom stepmother stepdaughter stepsister godmother goddaughter fiancée fiancee
    sister-in-law mother-in-law daughter-in-law landlady mrs ms miss madam lady""".split())
MALE_ROLES = frozenset("""brother dad father uncle nephew son husband boyfriend grandad granddad grandpa
    grandfather stepdad stepfather stepson stepbrother godfather godson fiancé brother-in-law father-in-law
    son-in-law landlord mr sir guy bloke chap lad""".split())
PERSON_ROLES = frozenset("""friend mate pal colleague coworker co-worker boss manager supervisor cousin neighbour
    neighbor flatmate roommate housemate partner spouse teacher tutor coach trainer teammate classmate doctor
    dentist gp physio therapist vet nurse mechanic plumber electrician builder hairdresser barber stylist
    accountant lawyer solicitor client customer student mentor sibling child kid grandchild babysitter nanny
    cleaner gardener agent intern assistant director founder pastor priest vicar rabbi imam surgeon
    consultant counsellor counselor landlady midwife childminder carer caregiver broker coordinator instructor
    lecturer professor headteacher receptionist pharmacist optician optometrist recruiter lodger tenant
    adviser advisor captain editor chef driver principal surveyor architect translator interpreter paramedic
    dietitian nutritionist osteopath chiropractor podiatrist barista photographer videographer decorator barrister
    caretaker waiter waitress bartender postman postwoman referee apprentice tattooist beautician""".split())
"""Roles that only a person holds, besides the gendered ones: "my colleague Abebe" names a person
whatever the NER made of the name; "my favourite band Coldplay" does not."""

_KEPT = 4_096
SERVICE_ROLES = frozenset("""doctor dentist gp physio physiotherapist therapist vet nurse mechanic plumber electrician
    builder hairdresser barber stylist accountant lawyer solicitor teacher tutor coach trainer instructor surgeon
    consultant counsellor counselor midwife optician optometrist pharmacist receptionist driver examiner
    osteopath chiropractor podiatrist dietitian nutritionist paramedic officer specialist hygienist""".split())
"""Roles of the people one meets at an appointment, a lesson or a counter: they may be the "she" of
"Had my check-up this morning - she said my results are fine"; a friend or a neighbour is not."""
_SERVICE_TITLES = frozenset({"Dr", "Prof", "Professor", "Coach"})
# what brings a stranger along (``_SCENE``, ``_STRANGER_SCENE``): a ride or a delivery, a job interview,
# a vehicle taken in, a counter that sells
_RIDES = r"taxi|cab|uber|deliver(?:y|ies|ed)|courier"
_INTERVIEW = r"(job )?interviews?"
_VEHICLE_TAKEN = r"(took|take|taking|dropped|drop|dropping|brought) (my|our|the) (car|van|bike|motorbike)"
_SELLERS = r"bakery|shop|caf[eé]|coffee shop|restaurant|deli"
_TILLS = r"supermarket|checkout|till"
# an encounter that brings a person of its own, named or not: an appointment, a test, a lesson, a
# service at a counter, a haircut, a car taken in, being pulled over ("Had my smear test at the surgery - she said …")
_SCENE = re.compile(
    r"\b(appointments?|check-?ups?|consultations?|scans?|smear|(blood|eye|driving|hearing|allergy) tests?|x-?rays?"
    r"|jabs?|vaccin\w+|injections?|lessons?|class(es)?|haircut|hair ?cut|pulled over|helpline|customer service"
    rf"|on hold|got through|{_RIDES}|(?:called|rang|phoned|rung) (?:up )?the \w+"
    r"|(got|had|getting|having) (my|our|the) (hair|nails|teeth|eyes|car|bloods?|boiler) \w+"
    rf"|{_VEHICLE_TAKEN} (in|off)|(?-i:MOT)"
    rf"|{_INTERVIEW}"
    r"|(at|to|from|in|into) the (surgery|clinic|hospital|salon|barber'?s|hairdresser'?s|dentist'?s|doctor'?s|garage"
    rf"|vet'?s|pharmacy|chemist'?s|bank|post office|counter|desk|reception|A&E|practice|{_SELLERS}"
    rf"|butcher'?s|florist'?s|{_TILLS}))\b", re.IGNORECASE)


# people a sentence may speak of in general, or unnamed, before a pronoun ("if a patient arrives
# unconscious, he can still be treated"; "whoever we pick, she needs …"): the pronoun is theirs
_ANYONE = frozenset("""someone somebody anyone anybody whoever person people patient man men
    woman women guy girl boy lady gentleman customer caller passenger player member candidate applicant employee
    worker stranger visitor guest owner buyer seller operator engineer technician rep representative examiner waiter
    waitress officer staff runner lead hire starter""".split())
# what takes "she" without being a woman, as the Cutty Sark does ("The ship was massive and she rolled")
VESSELS = frozenset("ship ships boat yacht ferry liner vessel sailboat dinghy barge narrowboat".split())
# what else people call "he" or "she": an animal, a vehicle, a plant they keep
_ANIMALS = r"""dogs? pupp(?:y|ies) cats? kittens? husky huskies spaniels? terriers? collies? poodles? retrievers?
    labradors? horses? pony ponies geldings? mares? stallions? foals? rabbits? bunny hamsters? parrots? budgies?
    tortoises? ferrets? pets?""".split()
_KEPT_THINGS = r"""cars? vans? utes? trucks? lorry motorbikes? motorcycles? bikes? scooters? campervans? motorhomes?
    caravans? tractors? plants? monsteras? figs? orchids? cactus cacti succulents? ferns? bonsai""".split()
_KEPT_THING = re.compile(rf"(?:{'|'.join(_ANIMALS + _KEPT_THINGS + sorted(VESSELS))})", re.IGNORECASE)
_AN_ANIMAL = re.compile(rf"(?:{'|'.join(_ANIMALS)})", re.IGNORECASE)


def in_general(word: str) -> bool:
    """A word for someone in general or unnamed (``_ANYONE``): "someone", "a customer", "whoever"."""
    low = word.lower()
    return low in _ANYONE or low.removesuffix("s") in _ANYONE


def speaks_of_anyone(word: str) -> bool:
    """A word for someone in general or unnamed (``_ANYONE``) or a person's role (``is_person_role``)."""
    return in_general(word) or is_person_role(word)


# an animal someone has: after a determiner or a possessive ("our spaniel", "a huge husky"; not
# "loves horse racing")
_ANIMAL = re.compile(rf"\b(?:my|our|his|her|their|a|an|the|two|three)\s+(?:[\w-]+\s+){{0,2}}?({'|'.join(_ANIMALS)})"
                     r"\b(?![\w-])", re.IGNORECASE)
_A_VESSEL = re.compile(rf"\b(?:my|our|his|her|their|a|an|the)\s+(?:[\w-]+\s+){{0,2}}?({'|'.join(sorted(VESSELS))})\b",
                       re.IGNORECASE)


@functools.lru_cache(maxsize=_KEPT)
def names_a_pet_or_a_ship(text: str) -> bool:
    """The text names an animal someone has or a ship or a boat, which take "he" or "she" as readily
    as a person ("Our neighbour Bartek has a husky" … "he dug up my flowerbed"; "Daniela helped me
    pick a sailboat" … "she handled the chop fine")."""
    return _ANIMAL.search(text) is not None or _A_VESSEL.search(text) is not None


def is_kept_thing(word: str) -> bool:
    """An animal, a vehicle, a plant or a boat someone keeps: it takes "he" or "she" as readily as a
    person ("my gelding … his front left", "the ute … she's done 280,000 km")."""
    return _KEPT_THING.fullmatch(word) is not None


def is_animal(word: str) -> bool:
    """An animal word of ``is_kept_thing``'s: "the dog", "our mare" take "he" or "she" wherever they stand."""
    return _AN_ANIMAL.fullmatch(word) is not None


def names_a_scene(text: str) -> bool:
    """The text tells of an encounter that brings a person of its own (``_SCENE``): whoever "she"
    is there, a friend named weeks before is not the best guess."""
    return _SCENE.search(text) is not None


# encounters whose person is a stranger, never someone one goes back to by name the way one goes to a
# GP or a tutor: a car at the garage, a taxi, a delivery, a helpline, a shop's counter, an interview
_STRANGER_SCENE = re.compile(
    rf"\b(garage|(?-i:MOT)|{_RIDES}|helpline|customer service|on hold|pulled over"
    rf"|{_INTERVIEW}|{_SELLERS}|{_TILLS}"
    rf"|post office|{_VEHICLE_TAKEN})\b",
    re.IGNORECASE)


def names_a_stranger_scene(text: str) -> bool:
    """The text tells of an encounter whose person is a stranger (``_STRANGER_SCENE``): even the
    GP memory knows by name is not the one who rang from the garage."""
    return _STRANGER_SCENE.search(text) is not None


@functools.lru_cache(maxsize=_KEPT)
def serves(text: str, name: str) -> bool:
    """``text`` names ``name`` as someone met for a service: with a title of that kind ("Dr Okafor",
    "Coach Delgado") or beside a role of ``SERVICE_ROLES`` ("my physio, Dana", "Dana, my physio";
    not "My coworker Bettina recommended a new dentist")."""
    if name.split()[0].rstrip(".") in _SERVICE_TITLES:
        return True
    at = text.find(name)
    if at < 0:
        return False
    before, after = _NAMED_ROLE.search(text[:at]), _SERVICE_AFTER.match(text[at + len(name):])
    roles = [w.lower() for m in (before, after) if m for w in m.group(1).split()]
    return any(r in SERVICE_ROLES or r.removesuffix("s") in SERVICE_ROLES for r in roles)


_ROLE = r"[a-z]+(?:-in-law)?"
_NAMED_ROLE = re.compile(rf"\b(?:my|our|his|her|their)?\s*({_ROLE})\.?,?\s+$", re.IGNORECASE)
_ROLE_AFTER = re.compile(rf"^,?\s+(?:my|our|his|her|their)\s+({_ROLE})\b", re.IGNORECASE)
# titles written before a name (a person's, whatever the NER says); religious, sporting and honorific
# ones too ("Coach Delgado", "Rabbi Feldman", "Father Brendan", "Dame Judi")
_TITLES = ("Mr", "Mrs", "Ms", "Mx", "Dr", "Miss", "Prof", "Professor", "Coach", "Rabbi", "Imam", "Pastor", "Father",
           "Fr", "Reverend", "Rev", "Judge", "Captain", "Capt", "Sir", "Dame", "Lady", "Lord")
_TITLE = rf"(?:{'|'.join(_TITLES)})\.?\s+"
_NAME = rf"(?!(?:{'|'.join(_TITLES)})\b){UPPER}[^\W\d_]*(?:[-'’]{UPPER}[^\W\d_]+)*"  # Ravi('s), Mei-Ling, O'Brien
_ROLE_NAMED = re.compile(rf"\b(?i:my|our|his|her|their|the|an?)\s+(?:[A-Za-z-]+(?:['’]s)?\s+){{0,3}}?"
                         rf"((?i:[a-z-]+)),?\s+((?:{_TITLE})?({_NAME}))"
                         rf"(?:\s+and\s+((?:{_TITLE})?({_NAME})))?")
# a role, where the person is from or sits, then the name set off: "The neighbour across the hall,
# Wojciech, has offered …", "my colleague from the Leeds office, Sam"
_ROLE_THEN_WHERE = re.compile(rf"\b(?i:my|our|the|an?)\s+((?i:[a-z-]+))\s+(?:(?i:from|at|in|across|down|up|over|on"
                              rf"|next door|upstairs|downstairs)\b[^,.;:!?]{{0,30}}|(?i:there|here)),"
                              rf"\s+((?:{_TITLE})?({_NAME}))\b")  # "the coordinator there, Yusuf": the comma at once
# what follows a name that a role is set off after: "Dana, my physio", "Ms Lindqvist, the piano teacher"
_ROLE_AFTER_NAME = r",\s+(?i:my|our|his|her|their|the|an?)\s+([A-Za-z-]+(?:\s+[A-Za-z-]+){0,2})"
_NAMED_THEN_ROLE = re.compile(rf"((?:{_TITLE})?({_NAME})){_ROLE_AFTER_NAME}")
# an address before a role, not a person: "the food bank on Albert Road, the coordinator there, Yusuf"
_AT_ADDRESS = re.compile(rf"\b(?i:in|at|on|from|near)\s+(?:{UPPER}[\w'’-]*\s+){{1,2}}$")
_SERVICE_AFTER = re.compile(_ROLE_AFTER_NAME)  # the same, read from the end of a name ``serves`` found
_CALENDAR = frozenset("""January February March April May June July August September October November December
    Monday Tuesday Wednesday Thursday Friday Saturday Sunday Christmas Easter""".split())
_TITLED = re.compile(rf"\b({_TITLE}({_NAME}))")
_LEADING_TITLE = re.compile(rf"{_TITLE}(\S.*)")
_KIN_TITLED = re.compile(rf"\b([A-Z][a-z]+)\s+({_NAME})")
_CALLED = re.compile(rf"\b(?i:a|an|this|some|my|our)\s+(?:[a-z]+\s+)?((?i:[a-z-]+))"
                     rf"\s+(?:called|named)\s+((?:{_TITLE})?({_NAME}))")
# "Her name's Dorota", "his name is Kwame": the name and the pronoun at once
_NAME_IS = re.compile(rf"\b(?i:(her|his|their))\s+name(?:'s|’s|\s+is)\s+((?:{_TITLE})?({_NAME}))")
_CALLED_GENDER = {"guy": "m", "man": "m", "bloke": "m", "chap": "m", "boy": "m", "lad": "m",
                  "woman": "f", "girl": "f", "lady": "f"}
# a name a relative clause of "who" follows is a person's: "alongside Precious, who's been doing it for years"
_WHO = re.compile(rf"((?:{_TITLE})?({_NAME})),\s+who(?:'s|’s|\s)")
_PRONOUN = re.compile(r"\b(he|him|his|himself|she|her|hers|herself)\b", re.IGNORECASE)
_THEY_WORD = re.compile(r"\b(they|them|their|theirs)\b", re.IGNORECASE)


def refers_by_pronoun(text: str) -> bool:
    """Whether the text holds a he/she-family word, or a they-family one (a person may go by
    "they"): the only words memory's people are read for."""
    return _PRONOUN.search(text) is not None or _THEY_WORD.search(text) is not None


_GENDERED = "|".join(sorted((re.escape(r) for r in FEMALE_ROLES | MALE_ROLES), key=lambda r: (-len(r), r)))
_UNNAMED = re.compile(rf"\b(?i:my|our)\s+(?:[a-z]+\s+)?({_GENDERED})(?![\w-])(?!['’]s)(?!\s*,?\s*{UPPER})")


_ROLE_PREFIXES = ("ex-", "step-")
"""What a role may be written with and stays a role of the same person's pronoun: "my ex-husband
Wade", "my step-mum"."""


def _bare_role(word: str) -> str:
    low = word.lower()
    for prefix in _ROLE_PREFIXES:
        low = low.removeprefix(prefix)
    return low


def role_gender(word: str) -> str | None:
    """"f" or "m" for a gendered role or its plural ("sister", "brothers", "ex-wife"), else None."""
    bare = _bare_role(word)
    for low in (bare, bare.removesuffix("s")):
        if low in FEMALE_ROLES:
            return "f"
        if low in MALE_ROLES:
            return "m"
    return None


def _pronoun_after(text: str, start: int, others: Sequence[int]) -> str | None:
    """The gender of the first he/she-family pronoun after ``start`` when no other name (at
    positions ``others``) comes before it."""
    found = _PRONOUN.search(text, start)
    if found is None or any(start < o < found.start() for o in others):
        return None
    return "f" if found.group(1).lower().startswith(("she", "her")) else "m"


# a person who goes by "they": "Jules uses they/them", "is non-binary", "their pronouns are they/them"
_THEY_MARK = re.compile(r"\b(?:uses?|using|goes by|prefers?|pronouns (?:are|is))\s+[\"'“]?they\b|\bthey/them\b"
                        r"|\bnon-?binary\b", re.IGNORECASE)


_MARKED_AT = re.compile(r"\s*[(,]\s*they/them\b", re.IGNORECASE)  # right after the name: "Sky (they/them)"
_PAIRED = re.compile(r"(?:\band|&|,)\s*$", re.IGNORECASE)  # "Charlie and Rowan (they/them)": both, maybe


# "they" as the very next clause's subject: "Jules — they do fine line work", "our DM is Avery and they
# are SO good at voices", "Mx. Okonkwo, they seem lovely"; nothing but a dash, a comma or "and" between
_THEY_NEXT = re.compile(r"(?:\s*[,;:—–-]\s*|\s+and\s+)(?:they|they['’](?:re|ve|ll|d))\s+(?!all\b|both\b)[a-z]",
                        re.IGNORECASE)


# the name as the clause's subject or what it says someone is, not an object ("tulips for Nadia; they …")
_NAME_SAID = re.compile(rf"(?:^|\bis|\bwas|['’]s|\bcalled|\bnamed|[,;:—–-])\s*(?:{_TITLE})?$", re.IGNORECASE)


def _they_after(text: str, at: int, start: int, others: Sequence[int]) -> str | None:
    """"n" when the text says, within a few words after ``start`` (the end of the name written at
    ``at``) and before another name, that the person goes by "they" (``_THEY_MARK``), or makes
    "they" the subject of the clause right after the name (``_THEY_NEXT``) when the name is the
    subject of its own clause or what it says someone is (``_NAME_SAID``): "our DM is Avery and they
    are so good at voices", not "Sent the photos to Priya and they came out well"."""
    if _THEY_NEXT.match(text, start) is not None and _NAME_SAID.search(text, max(0, at - 40), at) is not None:
        return "n"
    found = _THEY_MARK.search(text, start)
    if found is None or found.start() - start > 60 or any(start < o < found.start() for o in others):
        return None
    return "n"


def pronouns_in(text: str, names: Sequence[str]) -> dict[str, str]:
    """``{name: "f" | "m" | "n"}`` for those of ``names`` whose pronoun ``text`` tells (see above;
    "n": the person goes by "they")."""
    where = {n: text.find(n) for n in names if n and text.find(n) >= 0}
    out: dict[str, str] = {}
    for name, at in where.items():
        before = _NAMED_ROLE.search(text[:at])
        after = _ROLE_AFTER.match(text[at + len(name):])
        role = (before and role_gender(before.group(1))) or (after and role_gender(after.group(1)))
        others = [o for n, o in where.items() if n != name]
        first = all(at <= o for o in others)
        # not "Charlie and Rowan - both use they/them"; "Ella's teacher is Sky (they/them)" is Sky's
        alone = not any(at - 40 <= o < at for o in others) or (
            _MARKED_AT.match(text, at + len(name)) is not None and not _PAIRED.search(text, 0, at))
        gender = role or (_they_after(text, at, at + len(name), others) if alone else None) or (
            _pronoun_after(text, at + len(name), others) if first else None)
        if gender is not None:
            out[name] = gender
    return out


_SUBJECT_PRONOUN = re.compile(r"\b(he|she)\b", re.IGNORECASE)


def referred_by_subject(text: str, name: str, others: Sequence[str] = ()) -> bool:
    """``text`` refers back to ``name`` as "he" or "she": the first subject pronoun after its first
    mention, with none of ``others`` (the text's other names) between and the name used neither as
    a place nor after an article ("Had lunch with Mateo … and he recommended"; not "We flew to
    Lisbon and she loved it", not "Spotify sent her a bill": an object pronoun says less)."""
    at = text.find(name) if name else -1
    if at < 0 or only_as_place(text, name) or only_after_article(text, name):
        return False
    found = _SUBJECT_PRONOUN.search(text, at + len(name))
    return found is not None and not any(at < text.find(o) < found.start() for o in others if o in text)


def is_person_role(word: str) -> bool:
    """A word only a person is called by (a role of ``FEMALE_ROLES``, ``MALE_ROLES``,
    ``PERSON_ROLES``, or its plural, ``_ROLE_PREFIXES`` before it or not): "the GP", "my boss",
    "my ex-boss"."""
    low = _bare_role(word)
    return role_gender(low) is not None or low in PERSON_ROLES or low.removesuffix("s") in PERSON_ROLES or (
        low.endswith("es") and low[:-2] in PERSON_ROLES)  # "coaches"


@functools.lru_cache(maxsize=_KEPT)
def named_by_role(text: str) -> tuple[tuple[str, str, str | None], ...]:
    """``(name, surface, pronoun)`` of the people ``text`` names beside a person's role ("my
    mother-in-law Keiko", "our tutor, Mr Haddad", "my friends Sipho and Rajesh", "the neighbour
    across the hall, Wojciech", "Dr Vasquez, my dentist", "the coordinator, Agnieszka", "my
    partner's mum Hiroko", "Ms Lindqvist, the piano teacher"), as "a guy called Giorgos" or "a uni
    student called Priyanka", as "her name's Dorota", before ", who" ("with Xochitl, who grew up
    there") or after a title ("Mrs Adeyemi has offered …", "Nana Beatriz"): the name, the name as
    written with its title ("Mr Haddad"), and ``"f"``/``"m"``/None from the role or the title ("my
    brothers Kenji and Daisuke": both "m"; "my friends": unknown)."""
    out = []
    for m in _ROLE_NAMED.finditer(text):
        if not is_person_role(m.group(1)):
            continue
        role = role_gender(m.group(1))
        for surface, name in ((m.group(2), m.group(3)), (m.group(4), m.group(5))):
            if surface:  # a title says it too: "our tutor, Mr Haddad"
                out.append((name, surface, role or title_gender(surface)))
    comma = "," in text  # the patterns below need a comma or a word: without it, no need to run them
    for m in _NAMED_THEN_ROLE.finditer(text) if comma else ():
        roles = [w for w in m.group(3).split() if is_person_role(w)]
        # not "In January, the letting agent …", nor "on Albert Road, the coordinator …"
        if roles and m.group(2) not in _CALENDAR and not _AT_ADDRESS.search(text, 0, m.start()):
            out.append((m.group(2), m.group(1), role_gender(roles[0]) or title_gender(m.group(1))))
    for m in _ROLE_THEN_WHERE.finditer(text) if comma else ():
        if is_person_role(m.group(1)) and m.group(3) not in _CALENDAR:
            out.append((m.group(3), m.group(2), role_gender(m.group(1)) or title_gender(m.group(2))))
    # "a guy called Giorgos", "a uni student called Priyanka"
    for m in _CALLED.finditer(text) if "called" in text or "named" in text else ():
        if m.group(1).lower() in _CALLED_GENDER or m.group(1).lower() == "person" or is_person_role(m.group(1)):
            out.append((m.group(3), m.group(2), _CALLED_GENDER.get(m.group(1).lower()) or role_gender(m.group(1))
                        or title_gender(m.group(2))))
    for m in _NAME_IS.finditer(text) if "name" in text else ():
        out.append((m.group(3), m.group(2), {"her": "f", "his": "m"}.get(m.group(1).lower())))
    named = {name for name, _, _ in out}
    for m in _WHO.finditer(text) if comma and "who" in text else ():
        if m.group(2) not in named and m.group(2) not in _CALENDAR:
            named.add(m.group(2))
            out.append((m.group(2), m.group(1), title_gender(m.group(1))))
    for m in _TITLED.finditer(text):  # a title before a name says it is a person: "Mrs Adeyemi offered …"
        if m.group(2) not in named:
            named.add(m.group(2))
            out.append((m.group(2), m.group(1), title_gender(m.group(1))))
    for m in _KIN_TITLED.finditer(text):  # a relation as a title: "Nana Beatriz", "Uncle Dev"
        gender = role_gender(m.group(1))
        if gender is not None and m.group(2) not in named:
            named.add(m.group(2))
            out.append((m.group(2), m.group(2), gender))
    return tuple(out)


def without_title(surface: str) -> str | None:
    """The name after a title ("Mr Haddad", "Dr. Nakamura": "Haddad", "Nakamura"), else None."""
    found = _LEADING_TITLE.match(surface)
    return found.group(1) if found else None


def title_gender(surface: str) -> str | None:
    """The pronoun a title before a name gives ("Mr Haddad": "m"), else None."""
    return role_gender(surface.split()[0].rstrip(".")) if " " in surface else None


def with_title(text: str, name: str) -> str:
    """``name`` as ``text`` writes it with a title before it ("Dr Nakamura", "Prof. Adeyemi"), else
    ``name``: what stands for the person in a rewritten sentence."""
    found = re.search(rf"\b{_TITLE}{re.escape(name)}\b", text) if name else None
    return found.group(0) if found else name


@functools.lru_cache(maxsize=_KEPT)
def unnamed_people(text: str) -> tuple[tuple[str, str | None], ...]:
    """``(phrase, pronoun)`` of the people ``text`` names by a gendered role alone, the phrase lower
    case ("Called my mum" → ``("my mum", "f")``; not "my mum's car", not "my sister Priya", nor a
    role said beside its person's name, ``_named_beside``)."""
    return tuple((m.group(0).lower(), role_gender(m.group(1))) for m in _UNNAMED.finditer(text)
                 if not _named_beside(text, m))


# a name the role is set off after ("Riaan, my boyfriend"), and a name the role is said to be ("my
# landlord here in Pune is Mr Kulkarni", "my dad is Tom")
_NAMED_BEFORE = re.compile(rf"((?:{_TITLE})?({_NAME})),\s*$")
_NAMED_AFTER = re.compile(rf"(?:\s+[^\s,.;:!?]+){{0,3}}?\s+(?:is|was)\s+((?:{_TITLE})?({_NAME}))(?![\w'’-])")


def _named_beside(text: str, role: re.Match[str]) -> bool:
    """The gendered role ``role`` found is a named person's, said beside the name: set off right after
    it or said to be it, the name a title's or a given name of the lists ("Yesterday, my dad …" and
    "my dad is Scottish" name no one). One person, not two: as two, each was the other's rival for
    "he" in the next message ("Riaan, my boyfriend, is driving" … "His bakkie's aircon died")."""
    for found in (_NAMED_BEFORE.search(text, 0, role.start()), _NAMED_AFTER.match(text, role.end())):
        if found and (without_title(found.group(1)) is not None or is_listed_name(found.group(2))):
            return True
    return False


def name_words(name: str) -> list[str]:
    """The words of a name, a hyphenated one's parts too ("Jun-seo": "Jun-seo", "Jun", "seo")."""
    return [part for word in name.split() for part in (word, *word.split("-"))]


def other_people(text: str, names: Sequence[str], unnamed: bool = True) -> list[str | None]:
    """The pronouns (``"f"``, ``"m"`` or None: unknown) of the people ``text`` mentions besides
    ``names`` (see above); ``unnamed=False`` leaves out those named by a role alone."""
    found: list[str | None] = [g for _, g in unnamed_people(text)] if unnamed else []
    known = {w for n in names for w in name_words(n)}  # "Jun-seo" is "Jun" too
    found += [gender for name, _, gender in named_by_role(text) if name not in known]
    return found


_PLACE = re.compile(r"\b(?:in|at|to|from|near|into|around|outside|inside|towards?)\s+$", re.IGNORECASE)
_ARTICLE = re.compile(r"\b(?:the|an?)\s+$", re.IGNORECASE)


def _each_after(text: str, name: str, follows) -> bool:
    """True when ``name`` occurs in ``text`` and ``follows(text before it)`` holds at each occurrence."""
    starts = [m.start() for m in re.finditer(re.escape(name), text)] if name else []
    return bool(starts) and all(follows(text[:at]) for at in starts)


@functools.lru_cache(maxsize=_KEPT)
def only_after_article(text: str, name: str) -> bool:
    """True when ``name`` occurs in ``text`` and each time right after an article ("Is the Louvre
    closed on Tuesdays?", "a Roth and a traditional IRA"): a model's PERSON that is a place, a
    thing or a family name, not one person."""
    return _each_after(text, name, _ARTICLE.search)


_MET = re.compile(r"\b(?:bump(?:s|ed|ing)?|r[au]n(?:s|ning)?)\s+into\s+$", re.IGNORECASE)


_TOPIC = re.compile(r"\b(?:on|about)\s+$", re.IGNORECASE)


def only_as_topic(text: str, name: str) -> bool:
    """True when ``name`` occurs in ``text`` and each time right after "on" or "about": what
    something is about ("my essay on Dickens", "a podcast about Lincoln"), not someone of the
    speaker's life ("run by Leilani" is)."""
    return _each_after(text, name, lambda before: bool(_TOPIC.search(before)))


@functools.lru_cache(maxsize=_KEPT)
def only_as_place(text: str, name: str) -> bool:
    """True when ``name`` occurs in ``text`` and each time right after a preposition of place
    ("bumped into Theo", "ran into Theo" meet a person)."""
    return _each_after(text, name, lambda before: bool(_PLACE.search(before)) and not _MET.search(before))
