import pytest

from fleet_memory.ingest.extract import extract_sentences
from fleet_memory.language import is_filler
from fleet_memory.ingest.records import Episode
from fleet_memory.clock import FixedClock


@pytest.mark.parametrize("text", [
    "Hey!", "Hi!", "Thanks so much!", "Wow, that's great!", "Thanks, you too!", "Hey Mel!", "Good to see you!",
    "How have you been?", "Wow, that's cool, Caroline!", "Anything new?", "Sounds awesome!", "lol",
    "Sorry to hear that.", "No worries, Jon!", "Got it.", "What about you, Mel?",
])
def test_greetings_filler_and_reactions_are_dropped(text):
    assert is_filler(text)


@pytest.mark.parametrize("text", [
    "Wow, love that painting!", "I went to a support group yesterday.", "Alice joined Google last year",
    "Thanks for the tip about Yosemite!", "Hey, I adopted a dog named Rex.", "My kids are excited about summer.",
    "Got it working after the update.", "No, I didn't go.",
])
def test_anything_with_substance_is_kept(text):
    assert not is_filler(text)


def test_sentences_are_attributed_to_the_speaker_and_episode():
    now = FixedClock().now()
    episodes = [Episode("a", "Hi Bob! I moved to Lisbon. It was a big step.", now, speaker="Ann"),
                Episode("a", "Thanks!", now, speaker="Bob"),
                Episode("a", "The office opens at nine.", now)]
    facts = extract_sentences(episodes)
    assert [(f.episode_index, f.text, f.speaker) for f in facts] == [
        (0, "I moved to Lisbon.", "Ann"), (0, "It was a big step.", "Ann"), (2, "The office opens at nine.", None)]


def test_the_month_table_knows_full_names_and_abbreviations():
    from fleet_memory.language import MONTH_NAMES, MONTHS

    assert MONTHS["january"] == MONTHS["jan"] == 1 and MONTHS["sept"] == MONTHS["sep"] == MONTHS["september"] == 9
    assert [MONTHS[m] for m in MONTH_NAMES] == list(range(1, 13)) and len(MONTHS) == 24
