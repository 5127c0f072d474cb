"""The guards of ``ingest.coref`` that read a sentence's parse, on parses written by hand (the
model's own tagging of such sentences varies; the end-to-end cases are in
tests/integration/ingest/test_pronouns_across_puts.py)."""

from __future__ import annotations

from fleet_memory.ingest.coref import _expand_contraction, _names_of_others, _own_subject_before, _said_after
from fleet_memory.providers.nlp import Token


def _parse(written: str) -> list[Token]:
    """Tokens written as ``text/TAG/POS/dep/head``, separated by spaces."""
    out = []
    for word in written.split():
        text, tag, pos, dep, head = word.split("/")
        out.append(Token(text, " ", tag, pos, dep, int(head)))
    return out


def test_a_bare_lower_case_word_the_model_took_for_a_name_is_no_subject_of_its_own() -> None:
    reckon = _parse("reckon/NNP/PROPN/nsubj/5 I/PRP/PRON/nsubj/2 messed/VBD/VERB/ccomp/0 up/RP/ADP/prt/2 "
                    "just/RB/ADV/advmod/5 found/VBN/VERB/ROOT/5 out/RP/ADP/prt/5 she/PRP/PRON/nsubj/8 "
                    "'s/VBZ/AUX/ccomp/5")
    assert not _own_subject_before(reckon, 7)
    locksmith = _parse("the/DT/DET/det/1 locksmith/NNP/PROPN/nsubj/2 took/VBD/VERB/ROOT/2 ages/NNS/NOUN/dobj/2 "
                       "and/CC/CCONJ/cc/2 she/PRP/PRON/nsubj/6 charged/VBD/VERB/conj/2")
    assert _own_subject_before(locksmith, 5)
    named = _parse("Tom/NNP/PROPN/nsubj/1 said/VBD/VERB/ROOT/1 she/PRP/PRON/nsubj/3 left/VBD/VERB/ccomp/1")
    assert _own_subject_before(named, 2)


def test_the_sentence_says_later_whom_the_pronoun_means() -> None:
    mean = _parse("she/PRP/PRON/nsubj/1 was/VBD/AUX/ROOT/1 late/JJ/ADJ/acomp/1 ,/,/PUNCT/punct/1 the/DT/DET/det/5 "
                  "plumber/NN/NOUN/npadvmod/1 I/PRP/PRON/nsubj/7 mean/VBP/VERB/parataxis/1 ././PUNCT/punct/1")
    assert _said_after(mean, 0)
    role = _parse("She/PRP/PRON/nsubj/1 was/VBD/AUX/ROOT/1 brilliant/JJ/ADJ/acomp/1 ,/,/PUNCT/punct/1 "
                  "the/DT/DET/det/6 new/JJ/ADJ/amod/6 midwife/NN/NOUN/npadvmod/1 ././PUNCT/punct/1")
    assert _said_after(role, 0)
    day = _parse("She/PRP/PRON/nsubj/1 rang/VBD/VERB/ROOT/1 ,/,/PUNCT/punct/1 the/DT/DET/det/4 "
                 "day/NN/NOUN/npadvmod/1 after/IN/ADP/prep/4 the/DT/DET/det/7 funeral/NN/NOUN/pobj/5 ././PUNCT/punct/1")
    assert not _said_after(day, 0)
    really = _parse("She/PRP/PRON/nsubj/1 is/VBZ/AUX/ROOT/1 well/RB/ADV/advmod/1 ,/,/PUNCT/punct/1 "
                    "I/PRP/PRON/nsubj/5 mean/VBP/VERB/parataxis/1 really/RB/ADV/advmod/7 well/RB/ADV/advmod/5 "
                    "././PUNCT/punct/1")
    assert not _said_after(really, 0)


def test_a_proper_noun_no_label_marks_before_the_pronoun_may_be_its_referent() -> None:
    show = _parse("Started/VBD/VERB/advcl/5 watching/VBG/VERB/xcomp/0 Fleabag/NNP/PROPN/dobj/1 ,/,/PUNCT/punct/5 "
                  "she/PRP/PRON/nsubj/5 keeps/VBZ/VERB/ROOT/5 talking/VBG/VERB/xcomp/5")
    assert _names_of_others(show, []) == [2]
    place = _parse("Moved/VBD/VERB/ROOT/0 to/IN/ADP/prep/0 Leeds/NNP/PROPN/pobj/1 and/CC/CCONJ/cc/0 "
                   "she/PRP/PRON/nsubj/5 loves/VBZ/VERB/conj/0 it/PRP/PRON/dobj/5")
    assert _names_of_others(place, []) == []


def test_she_s_supposed_to_is_she_is() -> None:
    tokens = [Token("she", "", "PRP", "PRON", "nsubjpass", 2), Token("'s", " ", "VBZ", "AUX", "auxpass", 2),
              Token("supposed", " ", "VBN", "VERB", "ROOT", 2), Token("to", " ", "TO", "PART", "aux", 4),
              Token("land", "", "VB", "VERB", "xcomp", 2)]
    edits: dict[int, str] = {}
    _expand_contraction(tokens, 0, edits)
    assert edits == {1: " is"}
    tokens[2] = Token("asked", " ", "VBN", "VERB", "ROOT", 2)  # the model's "auxpass" here too
    _expand_contraction(tokens, 0, edits)
    assert edits == {1: " has"}
