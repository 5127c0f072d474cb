"""The pure parts of reading a put against the agent's memory: the context built from
the one query per group, coreference seeded with it, the gazetteer, "Name: " turns, implied
subjects, junk names and dates named in the text. Rule-based parser, no database, no model."""

from datetime import date, datetime, timedelta, timezone

from fleet_memory.clock import FixedClock
from fleet_memory.ingest.coref import resolve_coreferences
from fleet_memory.ingest.dating import named_event_date
from fleet_memory.ingest.extract import extract_sentences
from fleet_memory.ingest.implied import with_subject
from fleet_memory.ingest.junk import is_common_alias, is_junk_name
from fleet_memory.ingest.memory import candidate_names, groups_of, put_context
from fleet_memory.ingest.ner import find_entities
from fleet_memory.ingest.records import AgentContext, Episode, ExtractedFact, ParsedFact
from fleet_memory.language import find_dates
from fleet_memory.store.reads.context import KnownName, RecentPerson
from tests.support.rule_nlp import RuleNLP

NOW = FixedClock().now()
NLP = RuleNLP({"Alice": "PERSON", "Bob": "PERSON", "Google": "ORG", "Zed": "PERSON", "Carol": "ORG"})


def _coref(contents, context, speakers=None):
    speakers = speakers or [None] * len(contents)
    episodes = [Episode("a", c, NOW, speaker=s) for c, s in zip(contents, speakers)]
    facts = [ExtractedFact(i, c, "episodic", speaker=s) for i, (c, s) in enumerate(zip(contents, speakers))]
    parsed = [ParsedFact(f, p) for f, p in zip(facts, NLP.parse([f.text for f in facts]))]
    named = find_entities(episodes, parsed, context)
    return named, resolve_coreferences(episodes, named, context=context)


def test_groups_and_the_names_asked():
    episodes = [Episode("a", "Met Carol Smith.", NOW, session_id="s1"), Episode("a", "x", NOW, session_id="s2"),
                Episode("b", "Hi", NOW, session_id="s1"), Episode("a", "Bob too.", NOW + timedelta(hours=1),
                                                                  session_id="s1")]
    groups = groups_of(episodes, timedelta(hours=24))
    assert [(g.query.agent_id, g.query.session_id, g.indexes) for g in groups] == [
        ("a", "s1", (0, 3)), ("a", "s2", (1,)), ("b", "s1", (2,))]
    first = groups[0].query
    assert first.since == NOW - timedelta(hours=24) and first.until == NOW + timedelta(hours=1)
    assert {"carol", "smith", "carol smith", "met carol smith", "bob"} <= set(first.names)
    assert len(candidate_names(["A B C D E F G"] * 3, limit=5)) == 5
    assert candidate_names(["Zoë met Ólafur in Łódź"]) == ["zoë", "ólafur", "łódź"]


def test_context_orders_people_least_relevant_first_and_keeps_first_names_of_other_labels():
    calls = []

    def query(queries):
        calls.append(queries)
        return [([RecentPerson("Bob", 1, 0), RecentPerson("Zed", 0, 10), RecentPerson("Alice", 0, 0),
                 RecentPerson("Acme", 0, 3, "ORG"), RecentPerson("Carol", 1, 5, "ORG"), RecentPerson("Sam", 0, -1)],
                [KnownName("Carol", "carol", "ORG", ("Caz",)), KnownName("Porto", "porto", "GPE", ())])]

    context = put_context([Episode("a", "She left.", NOW)], timedelta(hours=24), query)
    assert len(calls) == 1
    assert context.people[0] == ("Bob", "Carol", "Sam", "Alice", "Zed")
    assert context.speakers[0] == frozenset({"Sam"})
    assert context.gazetteer("a") == {"carol": "PERSON", "caz": "PERSON", "porto": "GPE"}


def test_a_pronoun_with_no_antecedent_in_the_put_takes_the_memory_s_latest_person():
    context = AgentContext(people={0: ("Bob", "Alice")})
    _, coref = _coref(["She joined Google."], context)
    assert coref[0].coref.text == "Alice joined Google."
    _, coref = _coref(["Bob met Zed.", "He joined Google."], AgentContext(people={0: ("Alice",), 1: ("Alice",)}))
    assert coref[1].coref.text == "Bob joined Google."  # the put's own people come later and win
    _, coref = _coref(["She joined Google."], AgentContext())
    assert coref[0].coref.text == "She joined Google."


def test_memory_speakers_are_not_antecedents_in_a_conversation_turn():
    context = AgentContext(people={0: ("Alice", "Bob")}, speakers={0: frozenset({"Bob"})})
    _, coref = _coref(["He joined Google."], context, speakers=["Alice"])
    assert coref[0].coref.text == "He joined Google."


def test_the_gazetteer_relabels_and_a_first_name_is_a_person():
    named, _ = _coref(["Carol joined Google."], AgentContext(known={"a": {"google": "PRODUCT"}}))
    assert {(s.text, s.label) for s in named[0].spans} == {("Carol", "PERSON"), ("Google", "PRODUCT")}


def test_name_colon_lines_are_that_speakers_turns():
    context = AgentContext(known={"a": {"kwabena asante": "PERSON"}})
    episodes = [Episode("a", "Sam: I love the new flat.\nKwabena Asante: The view is great.\nIt faces east.", NOW),
                Episode("a", "Note: buy milk.", NOW), Episode("a", "Bob: I agree.", NOW, speaker="Alice")]
    facts = extract_sentences(episodes, context)
    assert [(f.speaker, f.text) for f in facts] == [
        ("Sam", "I love the new flat."), ("Kwabena Asante", "The view is great."), ("Kwabena Asante", "It faces east."),
        (None, "Note: buy milk."), ("Alice", "Bob: I agree.")]


def test_the_implied_subject():
    def run(text, subject="Alice"):
        return with_subject(NLP.parse([text])[0].tokens, text, subject)

    assert run("Started at the new clinic today.") == "Alice started at the new clinic today."
    assert run("Met Bob at the barbecue.") == "Alice met Bob at the barbecue."
    assert run("Sounds like fun.") is None
    assert run("Dinner with the team.") is None


def test_junk_names():
    for name in ("snake_case", "Rich blog](https://img.shields.io/badge", "os.path"):
        assert is_junk_name(name), name
    for name in ("StopIteration", "getValue"):
        assert is_junk_name(name, f"Raise {name} when the iterator is exhausted."), name
    assert not is_junk_name("YouTube", "I watched it on YouTube last night.")
    assert is_junk_name("WHATSOEVER", "THE SOFTWARE IS PROVIDED AS IS WITHOUT WARRANTY WHATSOEVER")
    for name in ("NASA", "McDonald", "iPhone", "Guido van Rossum", "St. James"):
        assert not is_junk_name(name, "NASA hired Guido van Rossum."), name
    assert is_common_alias("SOFTWARE", "Python Software Foundation")
    assert is_common_alias("software", "Python Software Foundation")
    assert not is_common_alias("PSF", "Python Software Foundation")
    assert not is_common_alias("Mel", "Melanie")


def test_dates_in_the_text():
    put = datetime(2025, 5, 8, 13, 56, tzinfo=timezone.utc)
    assert named_event_date("She moved to Berlin in March 2024.", put) == (
        datetime(2024, 3, 1, tzinfo=timezone.utc), "march 2024")
    assert named_event_date("I went there yesterday.", put)[0] == put - timedelta(days=1)
    assert named_event_date("We met on 3 May.", put)[0] == datetime(2025, 5, 3, 13, 56, tzinfo=timezone.utc)
    assert named_event_date("Her birthday is 3 May.", put) is None  # a date, not an event
    assert named_event_date("The engineer comes on 20 May.", put) is None  # the future: an appointment
    assert named_event_date("I am leaving in June.", put) is None  # next June is nearer
    assert named_event_date("We went skiing in January.", put)[0] == datetime(2025, 1, 1, tzinfo=timezone.utc)
    said = datetime(2024, 8, 27, 20, 15, tzinfo=timezone.utc)  # last April is nearer, but these speak of the next
    assert named_event_date("She's going on maternity leave in April, so we're organising a collection.", said) is None
    assert named_event_date("The baby is due in April.", said) is None
    assert named_event_date("We'll repaint the hall in April.", said) is None
    assert named_event_date("She went on maternity leave in April, so we're short.", said)[0] == datetime(
        2024, 4, 1, tzinfo=timezone.utc)
    assert named_event_date("She\u2019s going on maternity leave in April.", said) is None  # a typographic apostrophe
    for past in ("We went to Tom's wedding in June.", "Flights were cancelled due to the storm in June.",
                 "The rent was due in June and I paid it late."):
        assert named_event_date(past, said)[0] == datetime(2024, 6, 1, tzinfo=timezone.utc), past
    assert named_event_date("I'm recovering from the op I had yesterday.", said)[0].date() == date(2024, 8, 26)
    assert named_event_date("I joined last year.", put) is None
    assert named_event_date("I did it today.", put) is None
    found = find_dates("on 7 May, then May 9th", put, partial_days=True)
    assert [(e.phrase, e.start.day) for e in found] == [("7 may", 7)]
    assert find_dates("on 7 May", put) == []  # queries do not read days without a year


def _mentions_of(rows):
    context = put_context([Episode("a", "She left.", NOW)], timedelta(hours=24), lambda queries: [(rows, [])])
    return [(m.name, m.gender, m.unit) for m in context.mentions[0]]


def test_memory_names_beside_roles_titles_and_roles_alone():
    unit = "Had a long call with my mum; Dr Nakamura at the clinic rang too."
    rows = [RecentPerson("", 0, -2, "", unit, NOW), RecentPerson("Nakamura", 0, 40, "PERSON", unit, NOW)]
    assert _mentions_of(rows) == [("Dr Nakamura", None, 0), ("my mum", "f", 0)]
    unit = "Is the Louvre closed on Tuesdays?"  # a PERSON of the model, written after "the"
    assert _mentions_of([RecentPerson("Louvre", 0, 7, "PERSON", unit, NOW)]) == []
    unit = "What's the difference between a Roth and a traditional IRA?"
    assert _mentions_of([RecentPerson("Roth", 0, 38, "PERSON", unit, NOW)]) == []


def test_a_name_of_another_label_is_a_person_when_its_unit_calls_it_he_or_she():
    unit = "Had lunch with Mateo from work today and he recommended a book."  # the model's GPE
    assert _mentions_of([RecentPerson("", 0, -2, "", unit, NOW), RecentPerson("Mateo", 0, 15, "GPE", unit, NOW)]) == [
        ("Mateo", "m", 0)]
    unit = "We flew to Lisbon and she loved it."
    assert _mentions_of([RecentPerson("Lisbon", 0, 11, "GPE", unit, NOW)]) == []
    unit = "I'm seeing a physio called Tomasz for my knee."  # the model's WORK_OF_ART, cut to the name
    # (no text calls him "he"; the first-name lists do)
    assert _mentions_of([RecentPerson("Tomasz for my knee", 0, 27, "WORK_OF_ART", unit, NOW)]) == [("Tomasz", "m", 0)]


def test_a_pronoun_is_learnt_from_the_message_as_it_was_put():
    stored = "Haddad seemed really thorough."  # coreference rewrote "She seemed …" at the put
    said = "I saw Dr Haddad, the new GP at our practice. She seemed really thorough."
    weeks = NOW - timedelta(days=14)
    rows = [RecentPerson("", 0, -2, "", stored, weeks, said), RecentPerson("Haddad", 0, 0, "PERSON", stored, weeks)]
    assert _mentions_of(rows) == [("Haddad", "f", 0)]
    # without the message nothing memory reads says Haddad is a person's name (no title, role, given
    # name or pronoun): a candidate still, marked as the model's PERSON "Porto" is
    assert _marks(rows[1:]) == [("Haddad", False)]


def _marks(rows):
    context = put_context([Episode("a", "She left.", NOW)], timedelta(hours=24), lambda queries: [(rows, [])])
    return [(m.name, m.marked) for m in context.mentions[0]]


def test_what_marks_a_name_as_a_person_s():
    """The model's PERSON for a city, a car or a bank is nobody's name; a given name, a title, a
    role, a pairing with a given name, someone's company or a person's deed marks one of unknown
    pronoun."""
    for unit, name in [("Can you give me a 3 day itinerary for Porto", "Porto"),
                       ("My mate is selling his old Golf and I'm tempted.", "Golf"),
                       ("Ideas that aren't just the usual Big Ben and Buckingham Palace stuff?", "Big Ben"),
                       ("How do I cancel a direct debit with Santander online?", "Santander")]:
        assert _marks([RecentPerson(name, 0, unit.index(name), "PERSON", unit, NOW)]) == [(name, False)]
    for unit, name, surface in [("I'm organising a hen do with Jess and Keziah for June.", "Keziah", "Keziah"),
                                ("Our neighbour Oksana is watering the plants.", "Oksana", "Oksana"),
                                ("Saw Mx Okonkwo at parents evening.", "Okonkwo", "Mx Okonkwo"),
                                ("Had a long meeting with Kowalski and the auditors.", "Kowalski", "Kowalski"),
                                ("Kowalski wants the invoice paid by Friday.", "Kowalski", "Kowalski")]:
        rows = [RecentPerson(name, 0, unit.index(name), "PERSON", unit, NOW)]
        assert _marks(rows) == [(surface, True)]


def test_a_first_name_beside_a_role_is_the_model_s_longer_person():
    unit = "A video call with her family, including her grandad, Don Aurelio."
    rows = [RecentPerson("Don Aurelio", 0, 47, "PERSON", unit, NOW)]
    assert _mentions_of(rows) == [("Don Aurelio", "m", 0)]  # one man, not "Don" beside him
    unit = "Li Wei, the new guy on my team, keeps asking me to review his pull requests."
    assert _mentions_of([RecentPerson("Li Wei", 0, 0, "PERSON", unit, NOW)]) == [("Li Wei", "m", 0)]


def test_a_bare_name_is_the_titled_person_another_unit_names():
    intro, later = "Can you help me reply to my landlord, Mr Haddad?", "Haddad wants to do an inspection."
    rows = [RecentPerson("Haddad", 1, 35, "PERSON", intro, NOW), RecentPerson("Haddad", 0, 0, "PERSON", later, NOW)]
    assert _mentions_of(rows) == [("Mr Haddad", "m", 1), ("Mr Haddad", "m", 0)]


def test_a_person_of_unknown_pronoun_mentioned_weeks_ago_is_a_candidate_marked_when_met_for_a_service():
    weeks = NOW - timedelta(days=30)
    unit = "My friend Benedikt is running the Berlin marathon."
    assert _mentions_of([RecentPerson("Benedikt", 0, 10, "PERSON", unit, weeks)]) == [("Benedikt", None, 0)]
    unit = "My brother Benedikt is running the Berlin marathon."  # his pronoun is known
    assert _mentions_of([RecentPerson("Benedikt", 0, 11, "PERSON", unit, weeks)]) == [("Benedikt", "m", 0)]

    def served(rows):
        context = put_context([Episode("a", "She left.", NOW)], timedelta(hours=24), lambda queries: [(rows, [])])
        return [(m.name, m.serves) for m in context.mentions[0]]
    assert served([RecentPerson("Dana", 0, 10, "PERSON", "My physio, Dana, gave me three exercises.", weeks)]) == [
        ("Dana", True)]
    assert served([RecentPerson("Okafor", 0, 3, "PERSON", "Dr Okafor wants me to wear a monitor.", weeks)]) == [
        ("Dr Okafor", True)]
    assert served([RecentPerson("Hannah", 0, 10, "PERSON", "My friend Hannah is coming to stay.", weeks)]) == [
        ("Hannah", False)]


def test_two_people_memory_knows_to_take_the_pronoun_leave_it_alone():
    from fleet_memory.ingest.records import RecentMention
    mentions = (RecentMention("Ingrid", "f", 1), RecentMention("Hannah", "f", 0))
    _, coref = _coref(["She got the job."], AgentContext(mentions={0: mentions}))
    assert coref[0].coref.text == "She got the job."
    _, coref = _coref(["She got the job."], AgentContext(mentions={0: mentions[1:]}))
    assert coref[0].coref.text == "Hannah got the job."


def test_a_person_named_by_a_role_in_the_sentence_keeps_the_pronoun():
    from fleet_memory.ingest.records import RecentMention
    context = AgentContext(mentions={0: (RecentMention("Carlos", "m", 0),)})
    _, coref = _coref(["Saw the GP this morning and he said it is a sprain."], context)
    assert coref[0].coref.text == "Saw the GP this morning and he said it is a sprain."


def test_a_hyphenated_name_and_its_first_part_are_one_person():
    unit = "My nephew Jun-seo just started at university in Melbourne."
    rows = [RecentPerson("Jun-seo", 0, 10, "PERSON", unit, NOW)]
    assert _mentions_of(rows) == [("Jun-seo", "m", 0)]


def test_an_acronym_its_unit_refers_back_to_is_no_person():
    unit = "Can you suggest 5 SQL questions she should practise?"  # the small model's ORG, then "she"
    context = put_context([Episode("a", "She left.", NOW)], timedelta(hours=24),
                          lambda queries: [([RecentPerson("SQL", 0, 16, "ORG", unit, NOW)], [])])
    assert context.people[0] == ()
    named = "Had lunch with Mateo today and he recommended a bar."  # a name of another label still is one
    context = put_context([Episode("a", "She left.", NOW)], timedelta(hours=24),
                          lambda queries: [([RecentPerson("Mateo", 0, 15, "GPE", named, NOW)], [])])
    assert context.people[0] == ("Mateo",)
