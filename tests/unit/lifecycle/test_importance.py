import pytest

from fleet_memory.config import LifecycleConfig
from fleet_memory.lifecycle.importance import importance_function, score_importance


def test_plain_short_text_is_base_plus_length():
    text = "Alice went home."
    assert score_importance(text) == pytest.approx(0.5 + len(text) / 1000)


def test_each_emotional_keyword_adds_a_tenth():
    short = "a critical error"
    assert score_importance(short) == pytest.approx(0.5 + 0.2 + len(short) / 1000)


def test_keyword_bonus_is_capped_at_three_tenths():
    text = "critical urgent error success failure warning"
    assert score_importance(text) == pytest.approx(0.5 + 0.3 + len(text) / 1000)


def test_keyword_counts_once_and_matches_word_starts_only():
    assert score_importance("error error error") == pytest.approx(0.5 + 0.1 + 17 / 1000)
    assert score_importance("Errors were successful") == pytest.approx(0.5 + 0.2 + 22 / 1000)
    assert score_importance("terror") == pytest.approx(0.5 + 6 / 1000)


def test_length_bonus_is_capped_at_two_tenths():
    assert score_importance("x" * 150) == pytest.approx(0.65)
    assert score_importance("x" * 5000) == pytest.approx(0.7)


def test_explicit_remember_tag_adds_three_tenths():
    assert score_importance("Alice went home.", ("explicit_remember",)) == pytest.approx(0.8 + 16 / 1000)
    assert score_importance("Alice went home.", ("remember",)) == pytest.approx(0.5 + 16 / 1000)


def test_total_is_capped_at_one():
    text = "critical urgent error " + "x" * 400
    assert score_importance(text, ["explicit_remember"]) == 1.0


def test_configured_keywords_replace_the_default_list():
    fn = importance_function(LifecycleConfig(emotional_keywords=("birthday",)))
    assert fn("Her birthday party", ()) == pytest.approx(0.6 + 18 / 1000)
    assert fn("a critical error", ()) == pytest.approx(0.5 + 16 / 1000)
