"""Given names, in two lists with two uses.

- The short list below (``is_first_name``): names common enough to make a word a person against
  the model's own label ("Carol" tagged ORG, "Alice loves hiking" with no PERSON span); short, so
  no place or thing is made a person by them ("Florence", "Lincoln" are not here).
- ``first_names.tsv`` (about 9,000 given names of many languages, each ``f``, ``m`` or ``n`` —
  either, or unclear —, written for this project; accents also folded: "Zoë" is "zoe"): the pronoun
  a name usually takes (``listed_gender``: "Kenji" is "he" though no text of memory says so), and
  whether a proper noun the model left with no label at all is a person (``is_listed_name``:
  "Dmitri keeps telling me …"). Names that are mostly ordinary words or places (will, may, hope,
  paris, sydney) were left out.

Names learnt from the batch (speakers, PERSON spans) and pronouns learnt from memory's texts count
first; these lists are the fallback."""

from __future__ import annotations

import functools
import unicodedata
from importlib import resources

__all__ = ["FIRST_NAMES", "is_acronym", "is_first_name", "is_listed_name", "listed_gender"]

FIRST_NAMES = frozenset({
    "abigail", "adam", "agnieszka", "ahmed", "aisha", "albert", "alex", "alexander", "ali", "alice", "alison",
    "amanda", "amelia", "amy", "ana", "ananya", "anders", "andrew", "angela", "anna", "anne", "antonio", "aoife",
    "arjun", "arthur", "ashley", "astrid", "audrey", "ava", "barbara", "beatriz", "ben", "betty", "bill", "bob",
    "brian", "calvin", "camila", "carl", "carla", "carlos", "carmen", "carol", "carole", "caroline", "casey",
    "charles", "charlotte", "chidi", "chioma", "chloe", "chris", "cian", "claire", "clara", "connor", "daniel",
    "dave", "david", "deborah", "declan", "dennis", "diana", "diego", "donna", "edward", "elena", "elizabeth",
    "ella", "ellie", "emeka", "emily", "emma", "eric", "ethan", "eva", "evan", "eve", "evie", "fatima", "fiona",
    "frank", "fred", "freya", "gabriela", "gary", "george", "gina", "giovanni", "grace", "graham", "greg",
    "grzegorz", "guido", "hannah", "hans", "harper", "harry", "hassan", "hazel", "heather", "helen", "henry",
    "hiroshi", "ian", "ibrahim", "ines", "ingrid", "inês", "irene", "iris", "isabel", "isabella", "ivy", "jack",
    "jakub", "james", "jamie", "jan", "jane", "jason", "jean", "jeff", "jennifer", "jessica", "jim", "joan",
    "joanna", "joaquin", "joaquín", "joe", "john", "jolene", "jon", "jordan", "jose", "joseph", "juan", "judy",
    "julia", "julie", "jurgen", "karen", "katarzyna", "kate", "katie", "keith", "kelly", "kenji", "kevin", "kim",
    "klaus", "kofi", "kwabena", "kwame", "larry", "lars", "laura", "lauren", "lee", "leila", "leo", "leonor",
    "liam", "lily", "linda", "ling", "lisa", "louis", "louise", "luc", "luca", "lucas", "lucia", "lucy", "lukas",
    "luke", "maja", "marco", "marek", "margaret", "maria", "marie", "mark", "marta", "martin", "mary", "matthew",
    "max", "megan", "mei", "melanie", "mia", "michael", "michelle", "miguel", "mike", "mohammed", "molly", "monica",
    "morgan", "nancy", "natalie", "natasha", "nate", "neil", "ngozi", "niamh", "nicole", "nina", "nkechi", "noah",
    "olga", "oliver", "olivia", "oluwaseun", "omar", "pat", "patricia", "patrick", "paul", "paula", "pawel",
    "pedro", "peter", "philip", "pierre", "piotr", "priya", "rachel", "rafael", "rahul", "raj", "ralph", "rebecca",
    "richard", "riley", "robert", "robin", "ron", "rosa", "rose", "roy", "ruth", "ryan", "sam", "sandra", "sara",
    "sarah", "scott", "seamus", "sean", "simon", "siobhan", "sofia", "sophia", "sophie", "stephanie", "steve",
    "steven", "stuart", "susan", "sven", "takeshi", "tatiana", "taylor", "ted", "thomas", "tim", "tina", "tom",
    "tomasz", "tony", "valentina", "veronica", "vikram", "violet", "walter", "wayne", "william", "yuki", "zoe"
})


def _folded(word: str) -> str:
    """Lower case without accents: "Zoë", "Siobhán" are on the lists as "zoe", "siobhan"."""
    return "".join(c for c in unicodedata.normalize("NFKD", word.lower()) if not unicodedata.combining(c))


def is_first_name(word: str) -> bool:
    return word.lower() in FIRST_NAMES or _folded(word) in FIRST_NAMES


@functools.cache
def _listed() -> dict[str, str]:
    """``first_names.tsv``: name → "f", "m" or "n", read once."""
    text = resources.files(__package__).joinpath("first_names.tsv").read_text(encoding="utf-8")
    return dict(line.split("\t", 1) for line in text.splitlines() if line)


def is_acronym(word: str) -> bool:
    """Two to four capitals ("CV", "GP", "IRA"), or three letters of which two are capitals ("PhD",
    "MSc"): no person's name, whatever a model or a list says ("McKay" is one)."""
    return 2 <= len(word) <= 4 and word.isupper() or (len(word) == 3 and word.isalpha()
                                                       and sum(c.isupper() for c in word) == 2)


def is_listed_name(word: str) -> bool:
    """The word is a given name of ``first_names.tsv`` (any pronoun); an acronym is none ("IRA",
    though "Ira" is)."""
    listed = _listed()
    return not is_acronym(word) and (word.lower() in listed or _folded(word) in listed)


def listed_gender(name: str) -> str | None:
    """"f" or "m" when the name's first word is a given name that usually takes that pronoun
    ("Katarzyna Nowak" → "f"), else None (unknown, or a name of either: "Sam", "Andrea")."""
    words = name.split()
    if not words:
        return None
    listed = _listed()
    gender = listed.get(words[0].lower()) or listed.get(_folded(words[0]))
    return gender if gender in ("f", "m") else None
