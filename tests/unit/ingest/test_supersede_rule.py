"""The offline supersession rule (ingest/change_rule.py) on hand-made parses: no model, no database.
Counter-examples first: what must never supersede."""

from __future__ import annotations

from datetime import datetime, timezone
from uuid import uuid4

from fleet_memory.ingest.change_rule import Fact, rule_pairs, slots
from fleet_memory.providers.nlp import Parsed, Token

OLD = datetime(2024, 6, 1, tzinfo=timezone.utc)
NEW = datetime(2025, 2, 1, tzinfo=timezone.utc)


def _parse(*words: tuple[str, str, str, str, int]) -> Parsed:
    """(text, pos, tag, dep, head) per token."""
    return Parsed(tuple(Token(text=t, ws=" ", tag=g, pos=p, dep=d, head=h) for t, p, g, d, h in words), ())


def _fact(text: str, when: datetime, parsed: Parsed) -> Fact:
    return Fact(uuid4(), text, when, parsed)


def _record(n: str, year: str, points: str) -> Parsed:
    return _parse(("Record", "NOUN", "NN", "nsubjpass", 3), ("number", "NOUN", "NN", "compound", 0),
                  (n, "NUM", "CD", "nummod", 1), ("was", "AUX", "VBD", "auxpass", 4),
                  ("set", "VERB", "VBN", "ROOT", 4), ("in", "ADP", "IN", "prep", 4), (year, "NUM", "CD", "pobj", 5),
                  ("with", "ADP", "IN", "prep", 4), (points, "NUM", "CD", "nummod", 9),
                  ("points", "NOUN", "NNS", "pobj", 7))


def test_two_records_are_not_a_phone_number_that_changed() -> None:
    old = _fact("Record number 3 was set in 2019 with 412 points.", OLD, _record("3", "2019", "412"))
    new = _fact("Record number 2 was set in 2021 with 398 points.", NEW, _record("2", "2021", "398"))
    decided, _ = rule_pairs([(new, old)])
    assert decided == []


def _number(owner: str, digits: str) -> Parsed:
    return _parse((owner, "PROPN", "NNP", "poss", 2), ("'s", "PART", "POS", "case", 0),
                  ("number", "NOUN", "NN", "nsubj", 3), ("is", "AUX", "VBZ", "ROOT", 3),
                  (digits, "NUM", "CD", "attr", 3))


def test_a_persons_new_number_supersedes_the_old() -> None:
    old = _fact("Tomasz's number is 07700 900461.", OLD, _number("Tomasz", "07700 900461"))
    new = _fact("Tomasz's number is 07700 900982.", NEW, _number("Tomasz", "07700 900982"))
    decided, _ = rule_pairs([(new, old)])
    assert [(p.older, p.newer, p.reason) for p in decided] == [(old.id, new.id, "rule:phone")]


def test_slot_patterns_stay_linear_on_one_long_word():
    # a 300,000-character word with no "@" and no phone word: the old email and phone patterns tried
    # from every position and scanned to the end (quadratic: minutes); now each tries once per word
    text = "Alice" + "x" * 300_000 + " lives in Rome. Mail ann@example.org or call 555-123-4567."
    assert slots(text) == {"residence", "email"}  # no phone word: the digits are no phone number
    assert slots("My phone number is 555-123-4567 and my email is (bob@mail.io).") == {"phone", "email"}
