"""Which texts name a changeable slot (ingest/change_rule.py, ingest/statements.py): starting a job with a role is an
employer fact; starting at a time or at the gym is not."""

import pytest

from fleet_memory.ingest.change_rule import SLOTS
from fleet_memory.ingest.statements import is_question, not_a_change, stated, told, uses_a_value


@pytest.mark.parametrize("text, expected", [
    ("Started at the new clinic today as a senior analyst.", True),
    ("She started with Acme as an engineer.", True),
    ("I'm a data analyst at Harlow Logistics.", True),
    ("Started at 6 am at the gym.", False),
    ("Started at the gym today.", False),
])
def test_employer_slot(text, expected):
    assert bool(SLOTS["employer"].search(text)) is expected


@pytest.mark.parametrize("text, expected", [
    ("Tomasz's number is 07700 900461.", True),
    ("Tomasz has a new phone number: 07700 900982, the old one is gone.", True),
    ("Tomasz changed his number again, it's 07700 900347 now.", True),
    ("My mobile is 555-0142-77.", True),
    ("Call me on my cell, +44 20 7946 0958.", True),
    # a number is a phone number only in a phone-ish context: phone-shaped digits
    ("Record number 3 was set in 2019 with 412 points.", False),
    ("Record number 2 was set in 2021 with 398 points.", False),
    ("The number of visitors was 1,200 in 2024.", False),
    ("Room number 214 is on the second floor.", False),
    ("My phone battery lasts about 600 minutes.", False),
])
def test_phone_slot_needs_a_phone_number(text, expected):
    assert bool(SLOTS["phone"].search(text)) is expected


@pytest.mark.parametrize("text, expected", [
    ("Should I move to Manchester?", True),
    ("Where do I live? Can you remind me?", True),
    ("What is my job", True),
    # a statement with a request beside it still states a value
    ("Changed my GitHub handle to dkowal, can you update the badge links in this README?", False),
    ("Mum's email is linda@example.org — can you draft a birthday message to her?", False),
    ("We moved Mateo to Brookside Montessori after the break. Any books on Montessori at home?", False),
    ("I live in Leeds.", False),
    # a request or an aside beside a question states nothing either
    ("If I took the clinic job in Dundee, would the longer commute be worth it? help me think it through", True),
    ("Would going keto be hard with all my work travel? just curious", True),
    ("Help me write a cover letter for the data role at Ocado.", False),  # no question: a request with a value
    ("Please note my new address is 5 Elm Street, Bristol. Can you update my profile?", False),  # a value
    # a question set off by a comma asks beside what the clause before it tells
    ("I bank with Barclays, can I set up a standing order in the app?", False),
    ("switched to Helix for editing, how do I get format on save working?", False),
    ("I'm on the nights rota now, what should I eat before a shift?", False),
    ("We moved to Leeds, should we register with a GP?", False),
    # only after a plain first-person clause: a condition, a hedge or a greeting is part of the question
    ("If we move to Leeds, should we sell the car?", True),
    ("Once the offer comes through, can I give notice straight away?", True),
    ("So what do I do now, how do I fix it?", True),
    ("Can I keep my number, can I just swap the SIM?", True),
    ("Hypothetically, should I take the job at Google?", True),
    ("Hi, can I change my address to 12 Park Road?", True),
    ("Maybe we should move to Manchester, what do you think?", True),
    ("I'm thinking of moving to Leeds, should I rent first?", True),
    ("Octopus or EDF, which should I pick?", True),
    ("Need a hand, can I send you my CV?", True),  # "need" is no past tense
    ("Speed matters most, which broadband should I pick?", True),
    ("Fred, can we move the meeting to 3pm?", True),  # a name set off by a comma tells nothing
    ("Embed a video, how do I do that?", True),
    ("Agreed the rent with the new landlord, can you draft the email?", False),
    # a sentence that opens with a condition still states its value
    ("In case you need it, my new address is 12 Park Road. Can you update my profile?", False),
])
def test_a_question_states_no_value_but_a_statement_beside_a_request_does(text, expected):
    assert is_question(text) is expected


@pytest.mark.parametrize("text, expected", [
    ("Saw a locum, Dr Webb, because Dr Rahman was on holiday.", True),  # a stay elsewhere, a stand-in
    ("Just back from a week in Lisbon, the food was amazing.", True),
    ("Moved back from London to Leeds last month.", False),  # coming back for good is a move
    ("Cancelled the Crete trip, we'll be on holiday in Devon instead.", False),  # the plan ended
    ("I'm in Lagos for three weeks with my grandma.", True),  # a stay told by its length
    ("Covering nights for Dave this week while he's off.", True),  # a stand-in
    ("Been vegan for a week now and loving it.", False),  # how long a new state has lasted
    ("We moved into the flat in Leith a few weeks ago.", False),
])
def test_a_stay_elsewhere_is_no_change(text, expected):
    assert not_a_change(text) is expected


@pytest.mark.parametrize("text, expected", [
    # the speaker's value taken as given
    ("How do I turn off the fan noise on my Dell XPS 15?", True),
    ("Does my Vodafone contract cover calls to Ireland?", True),
    ("can you remind me what time we're at the Kestrel Park courts on Sunday?", True),
    # a value weighed: a modal of choice, a condition, a comparison, an opinion, a change considered
    ("Should I get a Dell XPS 15?", False),
    ("Would Vodafone be cheaper for calls to Ireland?", False),
    ("Is Three any good in the Highlands?", False),
    ("If we moved to Leith, how long would my commute be?", False),
    ("How do I switch my contract to Vodafone?", False),
    ("Is the Kia Niro better than the Toyota C-HR?", False),
    ("What do you think of Bloom as a name for the shop?", False),
    # nobody's value: the speaker is not in it
    ("Does Octopus do fixed tariffs?", False),
    # no question at all
    ("My laptop is a Dell XPS 15.", False),
])
def test_a_question_may_use_a_value_of_the_speakers_without_weighing_it(text, expected):
    assert uses_a_value(text) is expected
    assert stated(text, in_passing=True) is (expected or not is_question(text))
    assert stated(text) is not is_question(text)


@pytest.mark.parametrize("text, expected", [
    ("Renamed my GitHub to jamie-woods-dev. Will the old links in my CV still redirect?",
     "Renamed my GitHub to jamie-woods-dev."),  # what is asked is no cue of the same value again
    ("We adopted a second cat! Any tips for the first week?", "We adopted a second cat!"),
    ("Still at Deloitte, can you help me with my CV?", "Still at Deloitte"),
    ("Should I get another dog?", "Should I get another dog?"),  # all of it asks: read whole
])
def test_a_cue_of_no_change_is_read_in_what_the_text_tells(text, expected):
    assert told(text) == expected


@pytest.mark.parametrize("text, expected", [
    ("Renamed my GitHub to jamie-woods-dev. Will the old links in my CV still redirect?", False),  # "still" asked
    ("Still at Deloitte, can you help me with my CV?", True),  # "still" told
    ("Bought a Fiat 500 for my wife's commute. Cheapest way to insure a second car?", True),  # an addition asked
])
def test_the_same_value_again_is_read_where_it_is_told_an_addition_everywhere(text, expected):
    assert not_a_change(text) is expected
