"""Content words and name candidates drawn from a query."""

from fleet_memory.recall.query import content_words, name_candidates


def test_content_words_drop_stop_words_and_punctuation() -> None:
    assert content_words("What does Alice do at Google's office?") == ["alice", "google", "office"]


def test_content_words_are_tsquery_safe() -> None:
    words = content_words("a & b | c ! (d) <-> 'e' hiking:*")
    assert all(w.isalnum() for w in words)
    assert "hiking" in words


def test_name_candidates_cover_multi_word_names() -> None:
    names = name_candidates("When did Caroline visit New York with the LGBTQ group?")
    assert "caroline" in names
    assert "new york" in names
    assert "when" not in names and "the" not in names


def test_words_that_only_say_when_are_not_content() -> None:
    assert content_words("What do I eat these days?") == ["eat"]
    assert content_words("Where is Ravi at the moment, still in Pune nowadays?") == ["ravi", "pune"]
    assert content_words("What was my old phone number before I switched?") == ["phone", "number", "switched"]
    assert content_words("Which team did I originally support, the one I used to watch?") == [
        "team", "support", "one", "watch"]
    assert content_words("How old is my daughter?") == ["old", "daughter"]  # an age, not the past
