"""No sentence the splitter returns is longer than ``MAX_SENTENCE_CHARS``."""

from fleet_memory.language.sentences import MAX_SENTENCE_CHARS, split_sentences


def test_a_huge_sentence_is_cut_at_spaces_then_at_the_limit() -> None:
    words = " ".join(["word"] * 5_000)
    solid = "x" * (3 * MAX_SENTENCE_CHARS + 5)
    pieces = split_sentences(f"{words} {solid}. Bob moved to Rome.")
    assert all(len(p) <= MAX_SENTENCE_CHARS for p in pieces)
    assert pieces[-1] == "Bob moved to Rome."
    assert "".join(pieces[:-1]).replace(" ", "") == (words + solid + ".").replace(" ", "")
