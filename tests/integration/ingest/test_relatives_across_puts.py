"""A relative named by the relation alone ("my daughter") is the one person the user's memory names
by it ("my daughter Aoife"), written beside the relation, so the unit says whose fact it is (issue
33: a change needs the same holder; a question asked by the name finds it). Real spaCy, real
embedder, real PostgreSQL."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

pytestmark = pytest.mark.models

YEAR_AGO = datetime(2023, 9, 19, 20, tzinfo=timezone.utc)
NOW = YEAR_AGO + timedelta(days=355)


def _later(memory, agent, earlier, later, user="u1", **put):
    for i, text in enumerate(earlier):
        memory.put(agent, text, event_date=YEAR_AGO + timedelta(days=i), user_id=user)
    return memory.put(agent, later, event_date=NOW, user_id="u1", **put).texts


def test_a_year_later_my_daughter_is_the_daughter_memory_names(real_memory) -> None:
    texts = _later(real_memory, "a1", ["My daughter Aoife is in 3rd class at Scoil Mhuire."],
                   "My daughter's settling in well at Lucan Educate Together.")
    assert texts == ["My daughter Aoife's settling in well at Lucan Educate Together."]
    top = real_memory.search("a1", "Which school does Aoife go to?", top_k=2, now=NOW + timedelta(days=1),
                             reinforce=False)
    assert top[0].text == texts[0]


@pytest.mark.parametrize("earlier, later, expected", [
    (["My dad, Tom, is at Oakfield care home in Harrogate."], "Dad's settled in at Willow Court.",
     "Dad Tom's settled in at Willow Court."),
    (["Aoife, my daughter, loves maths."], "Our trip with my daughter was lovely.",
     "Our trip with my daughter Aoife was lovely."),
    (["My mum, Eileen, is on 0161 496 0732 at home."], "Mum's mobile is 07700 900881 now.",
     "Mum Eileen's mobile is 07700 900881 now."),
    # a spouse as "hubby" or "the missus": always the speaker's; a name given with "'s called"
    (["My hubby Femi is turning 50 in May."], "hubby wants a quiet dinner instead of a party.",
     "Hubby Femi wants a quiet dinner instead of a party."),
    (["My wife's called Ngaire and she teaches at the primary school."], "The missus has a cold this week.",
     "The missus Ngaire has a cold this week."),
    # a name in brackets after the relation
    (["Can you help me write a card for Mum (Bernadette)? She turns 70 on Friday."],
     "Mum wants to try aqua aerobics.", "Mum Bernadette wants to try aqua aerobics."),
    # a line's label and its colon: the user's own words
    (["My son Cormac started at the gaelscoil in September."], "Quick update: my son has made loads of friends.",
     "Quick update: my son Cormac has made loads of friends."),
])
def test_the_relation_said_another_way_is_the_same_person(real_memory, earlier, later, expected) -> None:
    assert _later(real_memory, "a1", earlier, later) == [expected]


@pytest.mark.parametrize("earlier, later", [
    (["My brother Sam lives in York.", "My brother Kofi lives in Accra."], "My brother is getting married."),
    (["My daughter Aoife is in 3rd class."], "My eldest daughter starts secondary school."),
    (["My partner Alex works at Aviva."], "My new partner works at Monzo."),
    (["My daughter Aoife is in 3rd class."], "My daughters both love the new school."),
    (["My daughter Aoife is in 3rd class."], "My daughter Aoife loves the new school."),
    # a name learnt only where the text gives one: not a word before ", my dad", nor after a verb
    (["Sadly, my dad passed away in March."], "My dad's birthday would have been today."),
    (["I told my mum Dave had left."], "My mum is coming over later."),
    (["I invited Sarah, my mum and my sister."], "My mum is coming over later."),
    (["Aoife, my daughter's best friend, came over."], "My daughter is settling in well."),
    # a relation that is part of a longer one, a modifier, a name given, someone else in the sentence
    (["My daughter Aoife is in 3rd class."], "My daughter-in-law is visiting."),
    (["My dad, Tom, is at Oakfield care home."], "Dad jokes are the worst."),
    (["My son Tom plays rugby."], "My son in Australia rang me."),
    (["My son Tom plays rugby."], "My son is called Jack by his friends."),
    (["My son Tom plays rugby."], "My son and Maria went to the cinema."),
    # relatives people have several of at once, or change: not read at all
    (["My cousin Sean lives in Cork."], "My cousin is getting married."),
    (["My boyfriend Mark is a chef."], "My boyfriend is taking me to Paris."),
    # a second review: a comma that opens a clause or a list, someone else's words, more than one
    (["Apart from my dad, Tom is the one I talk to most."], "My dad is coming to stay."),
    (["I went shopping with my mum, Sarah and Jo."], "My mum is coming to stay."),
    (["I invited Sarah, my mum, and my sister."], "My mum is coming to stay."),
    (['My friend wrote: "My husband Dave is amazing."'], "My husband is away this week."),
    (["Here's what my neighbour texted me: my son Rory has chickenpox."], "My son has a cough."),
    (["My daughter Aoife is 8.", "My other daughter is only 3."], "My daughter lost her first tooth today!"),
    (["I have three brothers.", "My brother Sam lives in Leeds."], "My brother is getting married!"),
    (["My husband John died in 2019."], "My husband and I are going to Spain."),
    (["My dad, Tom, is at Oakfield care home."], "Dad's taking the kids to football on Saturday."),
    (["Got a call from my mum Dave has been in an accident."], "My mum is coming over later."),
    (["My dad, Tom, is at Oakfield care home."], "Watching Dad's Army reruns tonight."),
    # a third review: "in law" without hyphens, a second one told another way, a name that is a
    # clause's subject, a list, single quotes, a bare "Dad" where memory knows a child, a tie ended
    (["My mum Eileen lives in Cork."], "Can you suggest a gift for my mother in law?"),
    (["My sister Priya lives in Leeds."], "I'm meeting my sister in law for lunch."),
    (["My daughter Aoife is 8.", "My 2 daughters are Aoife and Niamh."], "My daughter has a temperature."),
    (["My daughter Aoife is 8.", "I have another daughter too, Niamh."], "My daughter has a temperature."),
    (["My daughter Aoife is 8.", "My youngest, Niamh, starts school."], "My daughter has a temperature."),
    (["My brother Arjun lives in Pune.", "My elder brother Ravi is a doctor."], "My brother is visiting."),
    (["Just heard from my mum Sarah's pregnant again!"], "My mum's birthday is on Friday."),
    (["I went shopping with my mum, Sarah, Jo and Tom."], "My mum is coming to stay."),
    (["My neighbour texted 'sorry, my son Rory has chickenpox so we can't come'."], "My son has a cough."),
    (["My dad, Tom, is at Oakfield.", "My son Jack is 4."], "Dad's doing bath time tonight."),
    (["My wife Claire is a nurse.", "Claire and I split up last year."], "My wife starts a new job Monday."),
    (["My husband John is a chef.", "John passed in 2019."], "My husband and I went to Spain."),
    # a held-out set written by a helper who read none of the rules (93% precise, 2 wrong of 30):
    (["my son Leo (12) got into the football academy", "my other lad is 9 and hates sport"],
     "it's my son's 9th birthday next month, what lego sets are good"),
    # a second held-out set (precision .886 before these): a second child or grandparent told another way
    (["My son Kevin is joining JKUAT this September.", "My last born is in class 7 and struggling with maths."],
     "my son sits KCPE next year and his maths is still at 40 marks."),
    (["my son Liam is 3 and won't eat his veges", "our second baby arrived last week, another wee boy!"],
     "my son won't latch properly and the midwife reckons it might be tongue tie"),
    (["My grandmother Zubaida is visiting us from Karachi.", "my dad's mother lives with us in Lahore."],
     "my grandmother is unwell, how to arrange ambulance transport?"),
    # another one told with "also" or "too"
    (["My son Caoimhín is 6 and mad about hurling.", "I've also got a son from my first marriage, he's in Cork."],
     "My son wants to move back home for a while."),
    # the brackets say who it is
    (["My grandad, Eric, is 91 and still does the crossword."], "Grandad (our old tomcat) has stopped eating."),
    # someone else's relative in brackets
    (["My friend Ciara says her Mum (Bernadette) is unwell."], "Mum wants to try aqua aerobics."),
    # someone else's hubby
    (["My hubby Femi is turning 50 in May."], "Her hubby is a mechanic, she says."),
    # another child told by its age, and words after a colon that ends no label
    (["My daughter Isla is 6 and loves horses.", "I've a 15yo as well, glued to her phone all day."],
     "My daughter won't get out of bed before noon."),
    (["My son Cormac started at the gaelscoil in September."], "His teacher wrote: my son has made loads of friends."),
])
def test_a_relation_that_may_be_someone_else_is_left_alone(real_memory, earlier, later) -> None:
    assert _later(real_memory, "a1", earlier, later) == [later]


def test_a_message_that_names_someone_else_leaves_the_relation_alone(real_memory) -> None:
    texts = _later(real_memory, "a1", ["My brother Sam lives in Leeds."],
                   "My brother is getting married! Kofi met his fiancée at uni.")
    assert texts[0] == "My brother is getting married!"


def test_a_quotation_of_several_sentences_is_someone_else_s_words_throughout(real_memory) -> None:
    texts = _later(real_memory, "a1", ["My son Ryan is graduating high school in June."],
                   "can you polish this for my boss's retirement speech: 'When I started this company my son was "
                   "two. My son taught me patience, and this team taught me everything else.'")
    assert not any("Ryan" in text for text in texts)


def test_a_given_name_the_model_did_not_call_a_person_still_names_someone_else(real_memory) -> None:
    texts = _later(real_memory, "a1", ["My brother Sam lives in Leeds."],
                   "My brother is getting married! Oisín met his fiancée at uni.")
    assert texts[0] == "My brother is getting married!"


def test_another_user_s_relative_and_a_speaker_s_relation_are_not_the_user_s(real_memory) -> None:
    assert _later(real_memory, "a1", ["My daughter Aoife is in 3rd class."],
                  "My daughter is settling in well.", user="u2") == ["My daughter is settling in well."]
    real_memory.put("a2", "My daughter Aoife is in 3rd class.", event_date=YEAR_AGO, user_id="u1")
    turn = real_memory.put_many([{"speaker": "Melanie", "text": "My daughter is settling in well.", "user_id": "u1",
                                  "timestamp": NOW.isoformat()}], agent_id="a2")
    assert "Aoife" not in turn[0].units[0].text


def test_a_speaker_s_relative_in_memory_and_another_user_in_one_batch_are_not_the_user_s(real_memory) -> None:
    real_memory.put_many([{"speaker": "Melanie", "text": "Our son Rory started school.", "user_id": "u1",
                           "timestamp": YEAR_AGO.isoformat()}], agent_id="a3")
    assert real_memory.put("a3", "My son is learning to swim.", event_date=NOW, user_id="u1").texts == [
        "My son is learning to swim."]
    batch = real_memory.put_many([{"content": "My son broke his arm.", "user_id": "u1",
                                   "event_date": NOW.isoformat()},
                                  {"content": "My son Tom plays rugby.", "user_id": "u1",
                                   "event_date": (NOW - timedelta(hours=2)).isoformat()}], agent_id="a5")
    assert batch[0].units[0].text == "My son Tom broke his arm."  # the put's own words, read up front
    real_memory.put("a6", "My son Jack is 7.", event_date=YEAR_AGO, user_id="u1")
    batch = real_memory.put_many([{"content": "My son broke his arm.", "user_id": "u1",
                                   "event_date": NOW.isoformat()},
                                  {"content": "My son Tom plays rugby.", "user_id": "u1",
                                   "event_date": (NOW - timedelta(hours=2)).isoformat()}], agent_id="a6")
    assert batch[0].units[0].text == "My son broke his arm."  # memory's Jack and the put's Tom: no one
    batch = real_memory.put_many([{"content": "My daughter Aoife is in 3rd class.", "user_id": "u1",
                                   "event_date": NOW.isoformat()},
                                  {"content": "My daughter is settling in well.", "user_id": "u2",
                                   "event_date": NOW.isoformat()}], agent_id="a4")
    assert [u.text for u in batch[1].units] == ["My daughter is settling in well."]


def test_within_one_put_the_relative_it_names_first(real_memory) -> None:
    texts = real_memory.put("a1", "My sister Priya lives in Leeds. Later my sister moved to York.",
                            event_date=NOW, user_id="u1").texts
    assert texts[-1] == "Later my sister Priya moved to York."
    # a second name for the relation in the same put makes it no one's
    texts = real_memory.put("a2", "My brother Sam lives in Leeds. My brother Kofi lives in Accra. "
                                  "Later my brother moved.", event_date=NOW, user_id="u1").texts
    assert texts[-1] == "Later my brother moved."


def test_a_user_who_wants_their_words_as_put_turns_it_off(db_url, clock, real_embedder) -> None:
    from fleet_memory import Config, FleetMemory
    from fleet_memory.config import IngestConfig

    config = Config(database_url=db_url, ingest=IngestConfig(name_relatives=False))
    with FleetMemory(config, embedder=real_embedder, clock=clock) as memory:
        assert _later(memory, "a1", ["My daughter Aoife is in 3rd class."],
                      "My daughter's settling in well.") == ["My daughter's settling in well."]
