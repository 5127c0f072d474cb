"""``edited_parse``: the parse of a sentence after coreference's edits, made from the sentence's own
parse (the tree kept, the tokens and spans moved)."""

from __future__ import annotations

from fleet_memory.ingest.edited_parse import edited, joined, rendered
from fleet_memory.providers.nlp import Parsed, Span, Token


def parse(*rows: tuple[str, str, str, str, str, int], ents: tuple[Span, ...] = ()) -> Parsed:
    return Parsed(tuple(Token(*row) for row in rows), ents)


# "I'm swamped with my kids in Leeds." as the small model parses it
SWAMPED = parse(
    ("I", "", "PRP", "PRON", "nsubjpass", 2), ("'m", " ", "VBP", "AUX", "auxpass", 2),
    ("swamped", " ", "VBN", "VERB", "ROOT", 2), ("with", " ", "IN", "ADP", "prep", 2),
    ("my", " ", "PRP$", "PRON", "poss", 5), ("kids", " ", "NNS", "NOUN", "pobj", 3),
    ("in", " ", "IN", "ADP", "prep", 5), ("Leeds", "", "NNP", "PROPN", "pobj", 6), (".", "", ".", "PUNCT", "punct", 2),
    ents=(Span("Leeds", "GPE", 7, 8),))


def test_a_name_takes_the_pronouns_place_and_a_possessive_hangs_its_s_on_the_name():
    out = edited(SWAMPED, [(0, "Melanie"), (1, " is"), (4, "Melanie's")], {})
    assert rendered(out) == "Melanie is swamped with Melanie's kids in Leeds."
    rows = [(t.text, t.tag, t.dep, t.head) for t in out.tokens]
    assert rows == [("Melanie", "NNP", "nsubjpass", 2), ("is", "VBZ", "auxpass", 2), ("swamped", "VBN", "ROOT", 2),
                    ("with", "IN", "prep", 2), ("Melanie", "NNP", "poss", 6), ("'s", "POS", "case", 4),
                    ("kids", "NNS", "pobj", 3), ("in", "IN", "prep", 6), ("Leeds", "NNP", "pobj", 7),
                    (".", ".", "punct", 2)]
    assert [(s.text, s.label, s.start, s.end) for s in out.ents] == [
        ("Melanie", "PERSON", 0, 1), ("Melanie", "PERSON", 4, 5), ("Leeds", "GPE", 8, 9)]


def test_a_longer_name_is_compounds_of_its_last_word_with_the_referents_label():
    out = edited(SWAMPED, [(0, "Carol Ann"), (1, " is")], {"Carol Ann": "ORG"})
    assert rendered(out) == "Carol Ann is swamped with my kids in Leeds."
    assert [(t.text, t.dep, t.head) for t in out.tokens[:3]] == [("Carol", "compound", 1), ("Ann", "nsubjpass", 3),
                                                                ("is", "auxpass", 3)]
    assert out.ents[0] == Span("Carol Ann", "ORG", 0, 2)


def test_a_role_for_a_pronoun_is_no_entity():
    out = edited(SWAMPED, [(0, "My mum"), (1, " is")], {})
    assert [(t.text, t.tag, t.dep, t.head) for t in out.tokens[:2]] == [("My", "PRP$", "poss", 1),
                                                                       ("mum", "NN", "nsubjpass", 3)]
    assert [s.text for s in out.ents] == ["Leeds"]


def test_a_full_stop_the_parser_was_given_is_dropped():
    said = parse(("she", " ", "PRP", "PRON", "nsubj", 1), ("left", "", "VBD", "VERB", "ROOT", 1),
                 (".", "", ".", "PUNCT", "punct", 1))
    out = edited(said, [(0, "Ines")], {}, drop_last=True)
    assert rendered(out) == "Ines left" and len(out.tokens) == 2
    hanging = parse(("ok", "", "UH", "INTJ", "intj", 1), (".", "", ".", "PUNCT", "ROOT", 1))
    assert edited(hanging, [], {}, drop_last=True) is None  # a token hangs on the dropped full stop


def test_joined_parses_read_as_their_texts_joined_by_a_space():
    one = edited(SWAMPED, [(0, "Melanie"), (1, " is")], {})
    two = parse(("Loves", " ", "VBZ", "VERB", "ROOT", 0), ("it", "", "PRP", "PRON", "dobj", 0),
                (".", "", ".", "PUNCT", "punct", 0), ents=(Span("it", "X", 1, 2),))
    whole = joined([one, two])
    assert rendered(whole) == rendered(one) + " " + rendered(two)
    assert [t.head for t in whole.tokens[-3:]] == [9, 9, 9]
    assert whole.ents[-1] == Span("it", "X", 10, 11)
