"""Validation with the real spaCy model: procedures written as commands and a verb the small
model mis-tags are kept; pleasantries and fragments are not units on their own."""

import pytest

from fleet_memory.ingest.validate import is_complete
from fleet_memory.providers.nlp import SpacyNLP

KEPT = [
    "Always run the migrations before deploying.",
    "Clear the build cache when the tests fail.",
    "Bob climbs in Yosemite every spring.",
    "Melanie paints sunsets.",
    "The harbour crane lifts containers at night.",
]
NOT_ALONE = ["Great job!", "Thanks so much for the advice.", "Hey Mel!", "Nice photos.", "Kids and work."]


@pytest.fixture(scope="module")
def nlp():
    return SpacyNLP()


@pytest.mark.models
def test_commands_and_mistagged_verbs_are_complete(nlp):
    assert [is_complete(p) for p in nlp.parse(KEPT)] == [True] * len(KEPT)


@pytest.mark.models
def test_fragments_are_not(nlp):
    assert [is_complete(p) for p in nlp.parse(NOT_ALONE)] == [False] * len(NOT_ALONE)
