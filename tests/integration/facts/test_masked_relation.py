"""The masked relation, with the real models (spaCy parse, MiniLM embeddings): a
change no slot lists and no content word shows is found by the similarity of the two texts with
their values masked (``ingest.change_rule.masked_text``), for the same holder (or texts naming nobody
but the speaker) and with a change cue;
the controls it must not link: another attribute of the same holder, a slot the newer text states
and the older does not, another holder."""

from __future__ import annotations

import pytest

from fleet_memory.ingest.change_rule import masked_text
from fleet_memory.providers.nlp import SpacyNLP
from tests.support.superseding import superseded

pytestmark = pytest.mark.models


@pytest.mark.parametrize(("older", "newer"), [
    ("I drive a Honda Civic.", "Driving a Mazda 3 since May."),  # no word in common but the holder
    ("My barber is Tony on Mill Lane.", "I get my hair cut at Fade Lab now."),
    # no subject both texts share, but neither names anyone but the speaker
    ("The letting agent for our flat is Foxtons.", "Our letting agent is Hamptons now."),
])
def test_a_change_no_slot_lists_is_found_by_the_masked_texts(real_memory, older, newer) -> None:
    assert superseded(real_memory, older, newer)


@pytest.mark.parametrize(("older", "newer"), [
    ("I support Everton.", "I've started learning the piano now."),  # same holder and a cue, another attribute
    ("Tomasz is training for the Warsaw marathon in the autumn.",  # masked 0.51: the phone slot vetoes
     "Tomasz has a new phone number: 07700 900982, the old one is gone."),
    ("My sister Priya drives a Honda Civic.", "Driving a Mazda 3 since May."),  # another holder
    # a name the tagger calls a noun: another holder
    ("Grandma does the school pick-up on Wednesdays.", "The school pick-up is on Fridays now."),
])
def test_what_the_masked_texts_must_not_link(real_memory, older, newer) -> None:
    assert not superseded(real_memory, older, newer)


def test_the_values_are_masked_and_the_cues_dropped() -> None:
    parsed = SpacyNLP().parse(["I support Everton.", "Driving a Mazda 3 since May.", "My barber is Tony on Mill Lane."])
    assert [masked_text(p) for p in parsed] == ["I support X .", "Driving a X .", "My barber is X on X ."]
