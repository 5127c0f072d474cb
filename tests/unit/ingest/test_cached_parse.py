"""``CachedNLP``: supersession's parses of older units, kept by text (least recently used out)."""

from __future__ import annotations

from fleet_memory.ingest.parse_cache import CachedNLP
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
