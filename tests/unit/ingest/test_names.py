"""The first-name lists (ingest/names.py): a name's pronoun whatever its accents."""

from __future__ import annotations

from fleet_memory.ingest.names import is_first_name, listed_gender


def test_accents_do_not_hide_a_listed_name() -> None:
    assert is_first_name("Zoë") and is_first_name("zoe")
    assert listed_gender("Siobhán Kelly") == "f"
    assert listed_gender("Zoë") == "f"


def test_a_name_of_either_pronoun_and_an_unknown_name_give_none() -> None:
    assert is_first_name("Sam") and listed_gender("Sam") is None
    assert listed_gender("Xylophone") is None
    assert listed_gender("") is None


def test_the_given_name_list_gives_pronouns_and_personhood() -> None:
    from fleet_memory.ingest.names import is_listed_name

    assert listed_gender("Kenji") == "m" and listed_gender("Priyanka Rao") == "f"
    assert listed_gender("Andrea") is None  # a man's name in Italy, a woman's elsewhere
    assert is_listed_name("Arkady") and is_listed_name("ESPERANZA")
    assert not is_listed_name("Will") and not is_listed_name("Paris")  # mostly a word, a place
    assert is_listed_name("Ira") and not is_listed_name("IRA")  # an acronym is no name
