"""Given names, in two lists with two uses.

- The small lists below (``is_first_name``): names common enough to make a word a person against
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

__all__ = ["FEMALE_NAMES", "MALE_NAMES", "NEUTRAL_NAMES", "is_first_name", "is_listed_name", "listed_gender"]

FEMALE_NAMES = {
    "alice", "mary", "emma", "olivia", "sophia", "ava", "isabella", "mia", "emily", "sarah", "jessica", "jennifer",
    "linda", "susan", "karen", "lisa", "anna", "maria", "laura", "julia", "grace", "hannah", "rachel", "caroline",
    "melanie", "gina", "joanna", "audrey", "deborah", "jolene", "nancy", "kate", "katie", "amy", "claire", "chloe",
    "lucy", "lily", "zoe", "ella", "eva", "sara", "rebecca", "rose", "helen", "diana", "nina", "tina", "angela",
    "michelle", "natalie", "sophie", "amelia", "charlotte", "elizabeth", "margaret", "ruth", "jane", "betty",
    "carol", "carole", "ines", "inês", "marta", "siobhan", "aoife", "niamh", "nkechi", "ngozi", "chioma", "priya",
    "ananya", "aisha", "fatima", "leila", "yuki", "mei", "ling", "sofia", "lucia", "elena", "irene", "ingrid",
    "astrid", "freya", "maja", "agnieszka", "katarzyna", "olga", "natasha", "tatiana", "leonor", "beatriz",
    "camila", "valentina", "gabriela", "isabel", "carmen", "rosa", "paula", "monica", "veronica", "patricia",
    "barbara", "donna", "sandra", "carla", "heather", "megan", "lauren", "ashley", "amanda", "stephanie",
    "nicole", "kelly", "emma", "abigail", "harper", "ellie", "molly", "evie", "ines", "clara", "louise", "marie",
    "julie", "anne", "ana", "eve", "ivy", "violet", "hazel", "iris", "judy", "joan", "alison", "fiona",
}
MALE_NAMES = {
    "bob", "john", "james", "robert", "michael", "william", "david", "richard", "joseph", "thomas", "charles",
    "daniel", "matthew", "mark", "paul", "steven", "andrew", "kevin", "brian", "george", "edward", "peter",
    "jon", "nate", "tim", "evan", "calvin", "dave", "tom", "jack", "harry", "oliver", "noah", "liam",
    "ethan", "lucas", "henry", "alexander", "ben", "max", "leo", "adam", "eric", "frank", "greg", "jason", "mike",
    "ryan", "scott", "sean", "carl", "fred", "joe", "luke", "chris", "jim", "bill", "ted", "ron", "tony",
    "guido", "kwame", "oluwaseun", "tomasz", "joaquin", "joaquín", "grzegorz", "piotr", "pawel", "marek",
    "jakub", "lukas", "jan", "lars", "sven", "anders", "hans", "klaus", "jurgen", "pierre", "jean", "luc",
    "marco", "luca", "giovanni", "antonio", "carlos", "jose", "juan", "miguel", "pedro", "diego", "rafael",
    "hiroshi", "kenji", "takeshi", "raj", "arjun", "rahul", "vikram", "ahmed", "mohammed", "omar", "ali",
    "hassan", "ibrahim", "emeka", "chidi", "kofi", "kwabena", "seamus", "liam", "cian", "declan", "connor",
    "patrick", "kevin", "ian", "neil", "stuart", "graham", "keith", "gary", "wayne", "dennis", "larry",
    "jeff", "steve", "walter", "arthur", "albert", "ralph", "roy", "louis", "philip", "simon", "martin",
}
NEUTRAL_NAMES = {"alex", "sam", "jordan", "taylor", "casey", "morgan", "riley", "jamie", "pat", "robin", "kim", "lee"}


def _folded(word: str) -> str:
    """Lower case without accents: "Zoë", "Siobhán" are on the lists as "zoe", "siobhan"."""
    return "".join(c for c in unicodedata.normalize("NFKD", word.lower()) if not unicodedata.combining(c))


def is_first_name(word: str) -> bool:
    low = word.lower()
    return any(w in names for w in {low, _folded(word)} for names in (FEMALE_NAMES, MALE_NAMES, NEUTRAL_NAMES))


@functools.cache
def _listed() -> dict[str, str]:
    """``first_names.tsv``: name → "f", "m" or "n", read once."""
    text = resources.files(__package__).joinpath("first_names.tsv").read_text(encoding="utf-8")
    return dict(line.split("\t", 1) for line in text.splitlines() if line)


def is_listed_name(word: str) -> bool:
    """The word is a given name of ``first_names.tsv`` (any pronoun)."""
    listed = _listed()
    return word.lower() in listed or _folded(word) in listed


def listed_gender(name: str) -> str | None:
    """"f" or "m" when the name's first word is a given name that usually takes that pronoun
    ("Katarzyna Nowak" → "f"), else None (unknown, or a name of either: "Sam", "Andrea")."""
    words = name.split()
    if not words:
        return None
    listed = _listed()
    gender = listed.get(words[0].lower()) or listed.get(_folded(words[0]))
    return gender if gender in ("f", "m") else None
