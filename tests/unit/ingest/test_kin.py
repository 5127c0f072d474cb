"""Relatives named by the relation alone (``ingest.kin``) and how the put's context reads them from
the store's rows (``ingest.memory``). No database, no model."""

from datetime import timedelta

from fleet_memory.clock import FixedClock
from fleet_memory.ingest.kin import (SQL_PATTERN, is_label, merged_relatives, mentions_relative, named_relatives,
                                     pastes, relation_of, relatives, several)
from fleet_memory.ingest.memory import groups_of, put_context
from fleet_memory.ingest.records import Episode
from fleet_memory.store.reads.context import RELATIVE_TEXT, UNIT_TEXT, RecentPerson

NOW = FixedClock().now()


def test_a_relation_with_a_name_beside_it():
    assert named_relatives("My daughter Aoife is in 3rd class at Scoil Mhuire") == [("daughter", "Aoife")]
    assert named_relatives("My dad, Tom, is at Oakfield care home.") == [("father", "Tom")]
    assert named_relatives("Aoife, my daughter, loves maths.") == [("daughter", "Aoife")]
    assert named_relatives("my sister Priya Shah moved") == [("sister", "Priya Shah")]
    assert named_relatives("my mother-in-law Keiko visits") == [("mother-in-law", "Keiko")]
    assert named_relatives("My son And I went out. My mum In March said") == []
    assert named_relatives("my dentist Dr Park") == [] and named_relatives("my daughter is in Year 4") == []
    # the name is a given name of the lists, said beside the relation, not after a verb, not in a list
    for text in ("Sadly, my dad passed away.", "When we were in Dublin, my sister rang.", "I bought my son Lego.",
                 "I told my mum Dave had left.", "I invited Sarah, my mum and my sister.",
                 "Aoife, my daughter's best friend, came over.", "My mum, Dad and I went to Cork."):
        assert named_relatives(text) == [], text
    assert named_relatives("lunch with my sister Priya today") == [("sister", "Priya")]
    assert named_relatives("My son Tom's teacher rang") == [("son", "Tom")]


def test_one_person_per_relation_or_none():
    assert relatives(["my brother Kofi went", "my brother Sam came", "my sister Priya Shah", "my sister Priya"]) \
        == {"sister": "Priya", "brother": None}
    assert relation_of("Mum") == "mother" and relation_of("mom") == "mother" and relation_of("manager") is None


def test_a_comma_a_quotation_a_colon_or_the_wrong_pronoun_names_no_one():
    assert named_relatives("My dad, Tom, is at Oakfield.") == [("father", "Tom")]
    assert named_relatives("my dad, Tom.") == [("father", "Tom")]
    for text in ("Apart from my dad, Tom is the one I talk to most.", "I went shopping with my mum, Sarah and Jo.",
                 "I invited Sarah, my mum, and my sister.", 'My friend wrote: "My husband Dave is amazing."',
                 "She texted: my son Rory has chickenpox.", "Mel: My son Rory started school.",
                 "Got a call from my mum Dave has been in an accident."):
        assert named_relatives(text) == [], text
    assert named_relatives("Update: my son Rory started school.") == [("son", "Rory")]
    assert named_relatives("a card for Mum (Margaret)") == [("mother", "Margaret")]
    assert named_relatives("Stepdad (Gary) and I") == [("stepfather", "Gary")]
    assert named_relatives("her Mum (Margaret)") == [] == named_relatives("Tom's Dad (Gary)")
    assert is_label("Quick question:") and is_label("PS:") and not is_label("Mel:") and not is_label("She texted:")
    assert not pastes("Update: my son is off sick.") and pastes("Update: she texted: my son is off sick.")


def test_a_name_that_is_a_clause_s_subject_a_list_or_in_single_quotes_is_none():
    for text in ("Just heard from my mum Sarah's pregnant again!", "Found out from my dad Chris is moving to Spain.",
                 "Need to sort a present for my dad\nMark said he'd chip in", "I went shopping with my mum, Sarah, Jo.",
                 "We had Sarah, my mum, my sister and the kids over.", "Went to the cinema with my mum Jordan and Sam.",
                 "My neighbour texted 'sorry, my son Rory has chickenpox'.", "a gift for my mother in law Mary"):
        assert named_relatives(text) == [], text
    assert named_relatives("My Mum, Eileen, is lovely.") == [("mother", "Eileen")]
    assert named_relatives("Niamh is my daughter too.") == [("daughter", "Niamh")]
    assert named_relatives("My daughter's name is Niamh.") == [("daughter", "Niamh")]


def test_several_or_ended_makes_a_relation_no_one_s():
    assert several("My other daughter is only 3.") == {"daughter"}
    assert several("My daughters are 8 and 3.") == {"daughter"} and several("I have three brothers.") == {"brother"}
    assert several("my late husband") == {"husband"} and several("my ex-wife Claire") == {"wife", "husband"}
    assert several("My husband John died in 2019.") == {"husband"}
    assert several("My daughter Aoife is 8.") == set() and several("My son's school is lovely.") == set()
    assert relatives(["My daughter Aoife is 8.", "My youngest daughter starts creche."]) == {"daughter": None}
    assert merged_relatives({"son": "Jack", "mother": "Eileen"}, {"son": "Tom", "father": "Tom"}, {"mother": None}) == {
        "son": None, "mother": None, "father": "Tom"}
    assert merged_relatives({"son": "Tom"}, {"son": "Tom Byrne"}) == {"son": "Tom Byrne"}
    assert several("My 2 daughters are Aoife and Niamh.") == {"daughter"}
    assert several("I have another daughter too, Niamh") == {"daughter"} and several("Both my nans") == {"nan"}
    assert several("My mums are coming") == {"mother"} and several("My elder brother Ravi") == {"brother"}
    assert several("My youngest, Niamh, starts school") == {"daughter", "son"}
    assert several("Claire and I split up.") == {"wife", "husband"} == several("I remarried in June.")
    assert relatives(["My wife Claire is a nurse.", "Claire passed away last spring."]) == {"wife": None}
    for text in ("We have two boys, Tyler and Mason.", "The girls are both down with chickenpox.",
                 "Aoife's little sister is starting playschool.", "My 3 year old daughter refuses to nap.",
                 "I'm 38 weeks pregnant!"):
        assert {"daughter", "son"} <= several(text), text
    assert {"sister", "brother"} <= several("Growing up the youngest of four girls was chaos.")
    assert {"daughter", "son"} <= several("I've also got a boy from my first marriage, he's 20.")
    assert {"daughter", "son"} <= several("I have a 15 year old daughter as well.")
    assert {"sister", "brother"} <= several("I also have a sister in Leeds.") and several("We also have a cat.") == set()
    assert {"sister", "brother"} <= several("There's four of us girls, so Christmas is chaos.")
    assert {"wife", "husband"} <= several("Dave moved out in March.")
    assert {"daughter", "son"} <= several("my other lad is 9 and hates sport")
    for text in ("My last born is in class 7", "our second baby arrived last week, another wee boy!",
                 "my younger one just got her driver's permit"):
        assert {"daughter", "son"} <= several(text), text
    assert {"grandmother", "nan"} <= several("my dad's mother lives with us in Lahore")
    assert several("my little one is teething") == set()
    assert named_relatives("my daughter Chloe PSLE this year") == [("daughter", "Chloe")]


def test_someone_else_s_words_across_sentences():
    assert pastes("can you polish this speech: 'When I started my son was two. My son taught me patience.'")
    assert pastes('She said "My son is ill. My son needs rest."') and pastes("Mel: my son Rory started")
    assert not pastes("My daughter's settling in well. She loves it.") and not pastes("Time's up, it's 5:30")
    assert not pastes("I'm worried. My daughter's school rang.")


def test_a_text_that_names_a_relative_by_the_relation():
    assert mentions_relative("Mum's mobile is new") and mentions_relative("my dad's doctor")
    assert not mentions_relative("my aunt's doctor") and not mentions_relative("my boyfriend cooks")
    assert mentions_relative("our eldest son starts school")
    assert not mentions_relative("the mummy film was great") and not mentions_relative("my manager left")
    assert "daughter" in SQL_PATTERN and r"\m" in SQL_PATTERN


def test_the_context_asks_for_relatives_only_for_the_user_s_own_words():
    own = groups_of([Episode("a", "My daughter's settling in.", NOW, user_id="u1")], timedelta(hours=24))
    turn = groups_of([Episode("a", "My daughter's settling in.", NOW, speaker="Mel")], timedelta(hours=24))
    plain = groups_of([Episode("a", "The school is lovely.", NOW)], timedelta(hours=24))
    assert own[0].query.relatives == SQL_PATTERN
    assert turn[0].query.relatives is None and plain[0].query.relatives is None


def test_relatives_come_from_their_own_rows_not_from_the_recent_units():
    def query(queries):
        return [([RecentPerson("", -1, RELATIVE_TEXT, "", "My daughter Aoife is in 3rd class."),
                  RecentPerson("", 0, UNIT_TEXT, "", "Lovely weather today.")], [])]

    context = put_context([Episode("a", "My daughter's settling in.", NOW)], timedelta(hours=24), query)
    assert context.relatives[0] == {"daughter": "Aoife"}
    assert context.people[0] == ()
