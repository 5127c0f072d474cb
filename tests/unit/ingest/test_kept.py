"""``ingest.kept``: supersession's parses and masked-text embeddings of older units, kept by text (least recently used out)."""

from __future__ import annotations

import numpy as np

from fleet_memory.ingest.kept import CachedEmbedder, CachedNLP, Later
from tests.support.rule_nlp import RuleNLP


class Counting(RuleNLP):
    def __init__(self) -> None:
        super().__init__({"Alice": "PERSON"})
        self.asked: list[list[str]] = []

    def parse(self, texts):
        self.asked.append(list(texts))
        return super().parse(texts)


def test_each_text_is_parsed_once_while_kept_and_the_answers_match_the_parser():
    inner = Counting()
    cached = CachedNLP(inner, size=2)
    texts = ["Alice works at Google.", "Alice moved to Porto.", "Alice works at Google."]
    assert cached.parse(texts) == RuleNLP({"Alice": "PERSON"}).parse(texts)
    assert inner.asked == [["Alice works at Google.", "Alice moved to Porto."]]  # the repeat parsed once
    cached.parse(["Alice moved to Porto."])  # kept: no parse, and now the most recently used
    cached.parse(["Alice lives in Leeds."])  # a third text: the least recently used goes
    cached.parse(["Alice moved to Porto.", "Alice works at Google."])
    assert inner.asked[1:] == [["Alice lives in Leeds."], ["Alice works at Google."]]
    assert cached.parse([]) == []


def test_parses_handed_over_are_kept_like_the_parsers_own():
    inner = Counting()
    cached = CachedNLP(inner, size=2)
    handed = RuleNLP({"Alice": "PERSON"}).parse(["Alice works at Google.", "Alice moved to Porto."])
    cached.keep({"Alice works at Google.": handed[0], "Alice moved to Porto.": handed[1]})
    assert cached.parse(["Alice moved to Porto.", "Alice works at Google."]) == [handed[1], handed[0]]
    assert inner.asked == []
    cached.keep({"Alice lives in Leeds.": handed[0]})  # the bound holds: the least recently used goes
    cached.parse(["Alice moved to Porto."])
    assert inner.asked == [["Alice moved to Porto."]]
    cached.keep({"Alice lives in Leeds.": handed[0]})  # handed over again: now the most recently used
    cached.keep({"Alice works at Google.": handed[1]})
    cached.parse(["Alice lives in Leeds."])
    assert inner.asked == [["Alice moved to Porto."]]


def test_a_parse_handed_over_for_later_is_made_once_when_first_asked_for_else_parsed():
    inner = Counting()
    cached = CachedNLP(inner, size=4)
    handed = RuleNLP({"Alice": "PERSON"}).parse(["Alice works at Google."])[0]
    made: list[str] = []

    def later(text, parse):
        return Later(lambda: made.append(text) or parse)

    cached.keep({"Alice works at Google.": later("works", handed), "Alice moved to Porto.": later("moved", None)})
    assert made == []  # nothing made until asked for
    assert cached.parse(["Alice works at Google."]) == [handed] and made == ["works"]
    assert cached.parse(["Alice works at Google."]) == [handed] and made == ["works"]  # made once, then kept
    moved = cached.parse(["Alice moved to Porto."])  # cannot be made: parsed, and kept
    assert moved == RuleNLP({"Alice": "PERSON"}).parse(["Alice moved to Porto."])
    assert inner.asked == [["Alice moved to Porto."]] and made == ["works", "moved"]
    cached.parse(["Alice moved to Porto."])
    assert inner.asked == [["Alice moved to Porto."]] and made == ["works", "moved"]


def test_a_later_value_that_fails_to_be_made_is_parsed_instead_and_logged(caplog):
    inner = Counting()
    cached = CachedNLP(inner, size=4)

    def broken():
        raise IndexError("an edit past the last token")

    cached.keep({"Alice works at Google.": Later(broken)})
    with caplog.at_level("WARNING", logger="fleet_memory.ingest.kept"):
        parsed = cached.parse(["Alice works at Google."])
    assert parsed == RuleNLP({"Alice": "PERSON"}).parse(["Alice works at Google."])
    assert inner.asked == [["Alice works at Google."]] and "could not be made" in caplog.text


class CountingEmbedder:
    dimension = 2

    def __init__(self) -> None:
        self.asked: list[list[str]] = []

    def embed(self, texts):
        self.asked.append(list(texts))
        return np.array([[len(t), 1.0] for t in texts], dtype=np.float32)


def test_embeddings_are_kept_by_text_and_each_text_embedded_once():
    inner = CountingEmbedder()
    cached = CachedEmbedder(inner, size=2)
    first = cached.embed(["I drive a X .", "I work at X .", "I drive a X ."])
    assert first.tolist() == inner.embed(["I drive a X .", "I work at X .", "I drive a X ."]).tolist()
    inner.asked.clear()
    cached.embed(["I work at X ."])  # kept, now the most recently used
    cached.embed(["I live in X ."])  # a third text: the least recently used goes
    cached.embed(["I work at X .", "I drive a X ."])
    assert inner.asked == [["I live in X ."], ["I drive a X ."]]
    assert len(cached.embed([])) == 0
