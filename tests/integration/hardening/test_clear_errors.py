"""Inputs that used to raise raw exceptions get a clear ``InvalidInputError`` or are accepted."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from fleet_memory import InvalidInputError


@pytest.mark.parametrize("when", ["9999-12-31T23:00-05:00", "0001-01-01T00:30+01:00",
                                  datetime(9999, 12, 31, 23, tzinfo=timezone(timedelta(hours=-5)))])
def test_a_date_that_overflows_utc_names_the_field(memory, when) -> None:
    with pytest.raises(InvalidInputError) as caught:
        memory.put("a1", "Alice moved to Paris.", event_date=when)
    assert caught.value.field == "event_date" and "UTC" in caught.value.problem
    with pytest.raises(InvalidInputError) as caught:
        memory.search("a1", "Paris", since=when)
    assert caught.value.field == "since"
    assert memory.stats("a1").units == 0


@pytest.mark.parametrize("metadata, where", [({"note": "a\ud800b"}, "metadata"),
                                             ({"k\udfff": 1}, "metadata"),
                                             ({"deep": [{"x": "\udc80"}]}, "metadata"),
                                             ({"nul": "a\x00b"}, "metadata")])
def test_bad_characters_in_metadata_name_the_field(memory, metadata, where) -> None:
    with pytest.raises(InvalidInputError) as caught:
        memory.put("a1", "Alice moved to Paris.", metadata=metadata)
    assert caught.value.field == where
    assert memory.stats("a1").units == 0


def test_the_literal_text_backslash_u0000_in_metadata_is_stored(memory) -> None:
    literal = "C:\\u0000\\path and \\\\u0000"
    unit = memory.put("a1", "Alice moved to Paris.", metadata={"path": literal, literal: [literal]}).units[0]
    assert memory.get("a1", unit.id).metadata == {"path": literal, literal: [literal]}


def test_one_sentence_longer_than_spacy_accepts_is_parsed_in_pieces(memory) -> None:
    text = "Alice" + "x" * 1_100_000 + " visited Paris. Bob moved to Rome."
    result = memory.put("a1", text)
    assert memory.stats("a1").documents == 1
    assert any(u.text == "Bob moved to Rome." for u in result.units)
