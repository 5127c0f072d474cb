"""``providers.tag_rules`` annotates every token as spaCy's attribute ruler does (part of speech,
morphology, lemma, and the tag and dependency of spaces), with the real model; rules it does not
handle leave the ruler in place."""

from __future__ import annotations

from pathlib import Path

import pytest

from fleet_memory.providers.nlp import _load_spacy
from fleet_memory.providers.tag_rules import TagRules

pytestmark = pytest.mark.models

# every kind of the small model's exception: two-token rules (gon na, got ta, let 's, c'm on, y' all,
# there is), regular expressions (nothin', y'), dependency tests (aux, expl, det), spaces, and the
# plain tag map
TEXTS = [
    "I'm gonna go, y'all. Let's go! We gotta leave. C'mon now.",
    "There is a cat.  There are two   spaces, and there were more.",
    "I ain't nothin' but tired. Nuthin' happened, but y' know it.",
    "That is what that dog wants; those are mine and these are yours.",
    "He said  \n that it was fine, but she'd have done it differently.",
    "Something happened to someone, and nobody knew anything about it.",
    "Caroline went to the LGBTQ support group yesterday and it was powerful.",
    "Melanie: I painted a sunrise last week — it's the one with the lake!",
    "Can you believe it? They've been married for 5 years and still go hiking every weekend.",
    "Which one should I buy, the red or the blue? Whichever you like.",
    "Both were there. All of them laughed. Each had a story; either works.",
]


def _annotations(nlp, component, texts):
    docs = [nlp.make_doc(text) for text in texts]
    for name, step in nlp.pipeline:
        docs = list((component if name == "attribute_ruler" else step).pipe(docs))
    return [[(t.text, t.tag_, t.pos_, str(t.morph), t.lemma_, t.dep_, t.head.i) for t in doc] for doc in docs]


def _corpus() -> list[str]:
    data = Path(__file__).resolve().parents[3].parent / "shared" / "bench" / "locomo_dev.jsonl"
    if not data.exists():
        return TEXTS
    import json

    lines = data.read_text().splitlines()[:2]  # two conversations: 788 turns
    return TEXTS + [turn["text"] for line in lines for session in json.loads(line)["sessions"]
                    for turn in session["turns"]]


def test_the_rules_annotate_as_the_ruler_does():
    nlp = _load_spacy(None)
    ruler = nlp.get_pipe("attribute_ruler")
    rules = TagRules.of(ruler)
    assert rules is not None, "every rule of en_core_web_sm is one tag_rules handles"
    texts = _corpus()
    assert _annotations(nlp, rules, texts) == _annotations(nlp, ruler, texts)


def test_a_rule_beyond_what_is_handled_keeps_the_ruler():
    from spacy.pipeline import AttributeRuler

    nlp = _load_spacy(None)
    own = AttributeRuler(nlp.vocab)
    own.add([[{"LOWER": "gon"}, {"LOWER": "na"}]], {"LEMMA": "go"})
    assert TagRules.of(own) is not None
    own.add([[{"LOWER": "very", "OP": "+"}, {"POS": "ADJ"}]], {"LEMMA": "very"})  # an operator
    assert TagRules.of(own) is None
