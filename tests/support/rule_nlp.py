"""A real, deterministic parser for unit tests (``RuleNLP``): a tokenizer, a word list of pronouns,
auxiliaries and common verbs, and a lexicon of named entities given by the test. It produces the
records of ``providers.nlp`` (the ``NLP`` seam), good enough for the simple sentences unit tests
use; it loads no model."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from fleet_memory.providers.nlp import Parsed, Span, Token

_TOKEN = re.compile(r"[A-Za-z]+|\d+(?:[.,]\d+)*|'[a-z]+|[^\sA-Za-z\d]")
_PRONOUNS = {
    "i": "PRP", "you": "PRP", "he": "PRP", "she": "PRP", "it": "PRP", "we": "PRP", "they": "PRP",
    "me": "PRP", "him": "PRP", "us": "PRP", "them": "PRP", "her": "PRP$", "his": "PRP$", "my": "PRP$",
    "your": "PRP$", "its": "PRP$", "our": "PRP$", "their": "PRP$", "myself": "PRP", "herself": "PRP",
    "himself": "PRP",
}
_AUX = {"is": "VBZ", "am": "VBP", "are": "VBP", "was": "VBD", "were": "VBD", "has": "VBZ", "have": "VBP",
        "had": "VBD", "will": "MD", "would": "MD", "can": "MD", "do": "VBP", "does": "VBZ", "did": "VBD",
        "'m": "VBP", "'s": "VBZ", "'ve": "VBP", "'re": "VBP", "'ll": "MD", "'d": "MD"}
_VERBS = {
    "love", "loves", "loved", "go", "goes", "went", "work", "works", "worked", "join", "joins", "joined",
    "like", "likes", "liked", "live", "lives", "lived", "move", "moves", "moved", "visit", "visits", "visited",
    "play", "plays", "played", "start", "starts", "started", "met", "meet", "meets", "paint", "paints",
    "painted", "run", "runs", "ran", "sold", "sell", "sells", "released", "release", "releases", "read", "reads",
    "adopted", "adopt", "bought", "buy", "buys", "left",
    "teach", "teaches", "taught", "study", "studies", "studied", "said", "says", "say", "enjoy", "enjoys",
    "enjoyed", "hike", "hikes", "hiked", "build", "builds", "built", "make", "makes", "made", "see", "saw",
}
_SUBJECT_TAGS = {"PRP", "NNP", "NN", "NNS"}



class RuleNLP:
    """A deterministic rule-based parser for tests: ``entities`` maps surface names to labels."""

    def __init__(self, entities: Mapping[str, str] | None = None) -> None:
        self.entities = dict(entities or {})

    def parse(self, texts: Sequence[str]) -> list[Parsed]:
        return [self._parse_one(t) for t in texts]

    def _parse_one(self, text: str) -> Parsed:
        matches = list(_TOKEN.finditer(text))
        words = [m.group(0) for m in matches]
        ws = [
            text[m.end():matches[i + 1].start()] if i + 1 < len(matches) else text[m.end():]
            for i, m in enumerate(matches)
        ]
        tags: list[str] = []
        for i, w in enumerate(words):
            low = w.lower()
            if low in _PRONOUNS:
                tags.append(_PRONOUNS[low])
            elif low in _AUX:
                tags.append(_AUX[low])
            elif low in _VERBS:
                tags.append("VBD" if low.endswith(("ed", "t")) else ("VBZ" if low.endswith("s") else "VBP"))
            elif not w[0].isalnum():
                tags.append(".")
            elif w[0].isupper() and (i > 0 or self._entity_at(words, i) is not None):
                tags.append("NNP")
            else:
                tags.append("NN")
        pos = [_coarse(t) for t in tags]
        verb = next((i for i, t in enumerate(tags) if t.startswith("VB") or t == "MD"), None)
        root = verb if verb is not None else 0
        deps, heads = [], []
        subject_done = False
        for i, t in enumerate(tags):
            if i == root:
                deps.append("ROOT")
            elif verb is not None and i < verb and t in _SUBJECT_TAGS and not subject_done and (
                i + 1 == verb or tags[i + 1] not in _SUBJECT_TAGS
            ):
                deps.append("nsubj")
                subject_done = True
            elif t == "PRP$":
                deps.append("poss")
            elif t == ".":
                deps.append("punct")
            else:
                deps.append("dep")
            heads.append(root)
        tokens = tuple(Token(w, s, t, p, d, h) for w, s, t, p, d, h in zip(words, ws, tags, pos, deps, heads))
        ents = []
        i = 0
        while i < len(words):
            found = self._entity_at(words, i)
            if found is not None:
                length, label = found
                ents.append(Span(" ".join(words[i:i + length]), label, i, i + length))
                i += length
            else:
                i += 1
        return Parsed(tokens, tuple(ents))

    def _entity_at(self, words: list[str], i: int) -> tuple[int, str] | None:
        best = None
        for name, label in self.entities.items():
            parts = name.split()
            if words[i:i + len(parts)] == parts and (best is None or len(parts) > best[0]):
                best = (len(parts), label)
        return best


def _coarse(tag: str) -> str:
    if tag in ("PRP", "PRP$"):
        return "PRON"
    if tag == "NNP":
        return "PROPN"
    if tag in ("VBZ", "VBP", "VBD", "MD"):
        return "VERB"
    if tag == ".":
        return "PUNCT"
    return "NOUN"
