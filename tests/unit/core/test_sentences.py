from fleet_memory.language import split_sentences


def test_splits_on_sentence_ends():
    assert split_sentences("Alice works at Google. She joined last year! Did she? Yes.") == [
        "Alice works at Google.", "She joined last year!", "Did she?", "Yes.",
    ]


def test_keeps_abbreviations_and_decimals():
    text = "Dr. Smith met Mr. Jones at 3.5 p.m. in the U.S. office. They talked."
    assert split_sentences(text) == ["Dr. Smith met Mr. Jones at 3.5 p.m. in the U.S. office.", "They talked."]
    text = "The form tutor is Mx. Okonkwo, they seem lovely. Sgt. Haines came."
    assert split_sentences(text) == ["The form tutor is Mx. Okonkwo, they seem lovely.", "Sgt. Haines came."]
    assert split_sentences("Gave the engine a good rev. Then it stalled.") == [
        "Gave the engine a good rev.", "Then it stalled."]


def test_paragraphs_and_lists_end_sentences():
    text = "Shopping list\n\n- buy milk\n- call Bob about the car"
    assert split_sentences(text) == ["Shopping list", "buy milk", "call Bob about the car"]


def test_empty_and_whitespace():
    assert split_sentences("   \n ") == []
