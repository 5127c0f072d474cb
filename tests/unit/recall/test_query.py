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
