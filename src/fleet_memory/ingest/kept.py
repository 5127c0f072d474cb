"""What supersession reads of older units, kept between puts: their parses (``CachedNLP``) and the
embeddings of their masked texts (``CachedEmbedder``).

A put's supersession compares its new units with older candidates, and the candidates come up again
and again: the unit that says where someone works is a candidate for every later message about work.
Parsing them and embedding their masked texts again was most of the stage on a long series of puts
into one agent, so the ingestor keeps the last few thousand of each, and hands over the parse of each
unit written that the parse step's parse gives (``assemble._parse_of``: its sentence's parse, with
coreference's edits applied when it has some), made only when supersession first asks for it: most
units never become a candidate. Each depends on its text alone.
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from typing import Generic, TypeVar

import numpy as np

from ..providers.embedder import Embedder
from ..providers.nlp import NLP, Parsed

__all__ = ["CachedEmbedder", "CachedNLP", "Later"]

V = TypeVar("V")

_log = logging.getLogger(__name__)


class Later(Generic[V]):
    """A value made when first asked for (``make``), or None when it cannot be: then it is computed.
    ``made()`` turns an error of ``make`` into None (logged): it runs in a later put, which must not
    fail for a value it can compute itself."""

    __slots__ = ("make",)

    def __init__(self, make: Callable[[], V | None]) -> None:
        self.make = make

    def made(self, text: str) -> V | None:
        try:
            return self.make()
        except Exception:  # noqa: BLE001 - the value is computed instead
            _log.warning("the value kept for %r could not be made; computing it instead", text[:80], exc_info=True)
            return None


class _Kept(Generic[V]):
    """The values of the last ``size`` distinct texts (least recently used out); each distinct text of
    a call computed once, the missing ones in one call of ``compute``."""

    def __init__(self, compute: Callable[[list[str]], Sequence[V]], size: int) -> None:
        self.compute, self.size = compute, size
        self._kept: OrderedDict[str, V] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, texts: Sequence[str]) -> list[V]:
        distinct = list(dict.fromkeys(texts))
        with self._lock:
            kept = {t: self._kept[t] for t in distinct if t in self._kept}
            for text in kept:
                self._kept.move_to_end(text)
        later = {t: v.made(t) for t, v in kept.items() if isinstance(v, Later)}
        found = {t: v for t, v in {**kept, **later}.items() if v is not None}
        missing = [t for t in distinct if t not in found]
        if missing:
            found.update(zip(missing, self.compute(missing)))
        if later or missing:
            self.keep({t: found[t] for t in [*later, *missing]})
        return [found[t] for t in texts]

    def keep(self, values: Mapping[str, V | Later[V]]) -> None:
        with self._lock:
            for text, value in values.items():  # the most recently used last, a text kept before too
                self._kept[text] = value
                self._kept.move_to_end(text)
            while len(self._kept) > self.size:
                self._kept.popitem(last=False)


class CachedNLP:
    """Another ``NLP`` with the parses of the last ``size`` distinct texts kept. A parse is about 2 KB
    for a sentence of ten tokens (tokens with tags and heads): 8,192 hold 15–30 MB. With 2,048, a
    series of puts into one agent of 5,800 units parsed 400 of its candidates again (0.7 of its 2.9
    s of supersession): a unit that says where someone works is read again years later."""

    def __init__(self, nlp: NLP, size: int = 8_192) -> None:
        self._kept = _Kept(nlp.parse, size)

    def parse(self, texts: Sequence[str]) -> list[Parsed]:
        return self._kept.get(texts)

    def keep(self, parsed: Mapping[str, Parsed | Later[Parsed]]) -> None:
        """Keep parses made elsewhere, or to be made when first asked for: a put's parse step already
        parsed its units' sentences, and they are the next puts' candidates."""
        self._kept.keep(parsed)


class CachedEmbedder:
    """Another ``Embedder`` with the vectors of the last ``size`` distinct texts kept (384 floats
    each for the default model: 4,096 hold about 6 MB)."""

    def __init__(self, embedder: Embedder, size: int = 4_096) -> None:
        self.embedder = embedder
        self.dimension = embedder.dimension
        self._kept = _Kept(lambda texts: list(np.asarray(embedder.embed(texts), dtype=np.float32)), size)

    def embed(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return self.embedder.embed(texts)
        return np.stack(self._kept.get(texts))
