"""Small first-name lists: a hint of gender for coreference and of personhood for NER when the
small spaCy model misses a name ("Alice loves hiking" has no PERSON span). Not exhaustive; names
learnt from the batch (speakers, PERSON spans) count too."""

from __future__ import annotations

import unicodedata

__all__ = ["FEMALE_NAMES", "MALE_NAMES", "NEUTRAL_NAMES", "is_first_name", "listed_gender"]

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


def listed_gender(name: str) -> str | None:
    """"f" or "m" when the name's first word is on one of the lists ("Katarzyna Nowak" → "f"),
    else None."""
    words = name.split()
    first = {words[0].lower(), _folded(words[0])} if words else set()
    return "f" if first & FEMALE_NAMES else "m" if first & MALE_NAMES else None
