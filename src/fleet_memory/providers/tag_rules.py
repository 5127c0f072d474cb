"""A faster run of spaCy's ``attribute_ruler``, for rules of a few tokens with plain tests.

``en_core_web_sm``'s attribute ruler sets the coarse part of speech (and morphology, lemmas) from
the tagger's fine tag, with exceptions by lower-cased word and dependency ("but" as ADV when it is
an ``advmod``, "something" as a pronoun, "gon na"). Its 179 rules run through spaCy's general token
``Matcher``: a quarter of the whole parse (1.46 of 5.3 s for a LoCoMo conversation's 1,076
sentences). ``TagRules`` finds the same matches by looking up the few rules a token can start (by
its word, dependency, tag), then applies them as ``AttributeRuler`` does: every match found first,
then spaCy's own setter (``set_token_attrs``) with the ruler's own attributes, ordered by rule (a
later rule wins), then by position.

``TagRules.of(ruler)`` returns None — the caller keeps the ruler — when a rule is beyond what is
checked here: a key other than TAG, LOWER, ORTH, DEP and IS_SPACE, or a test other than a string,
a boolean, IN, NOT_IN and REGEX, or an operator. The test compares every token of the LoCoMo
sentences with the ruler's annotations.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

__all__ = ["TagRules"]

_TOKEN_KEYS = {"TAG": 0, "LOWER": 1, "DEP": 2, "IS_SPACE": 3, "ORTH": 4}
"""Where each pattern key's value is in a token's ``_features``."""

Test = tuple[int, str, object]  # (feature index, "eq" | "in" | "not_in" | "regex", argument)


def _features(token) -> tuple:
    return (token.tag_, token.lower_, token.dep_, token.is_space, token.text)


def _passes(features: tuple, tests: tuple[Test, ...]) -> bool:
    for at, op, arg in tests:
        got = features[at]
        if op == "eq":
            if got != arg:
                return False
        elif op == "in":
            if got not in arg:  # type: ignore[operator]
                return False
        elif op == "not_in":
            if got in arg:  # type: ignore[operator]
                return False
        elif arg.search(got) is None:  # type: ignore[attr-defined]
            return False
    return True


@dataclass(frozen=True, slots=True, eq=False)
class _Rule:
    order: int  # the ruler's attribute id: later rules win
    tokens: tuple[tuple[Test, ...], ...]  # per token of the pattern, its tests
    index: int  # the token of the match the attributes go to
    attrs: object  # the ruler's normalised attributes, for ``set_token_attrs``

    def matches(self, features: list[tuple], start: int) -> bool:
        if not _passes(features[start], self.tokens[0]):
            return False
        if start + len(self.tokens) > len(features):
            return False
        return all(_passes(features[start + k], tests) for k, tests in enumerate(self.tokens[1:], 1))


class TagRules:
    """The ruler's rules, each filed under one value its first token must have (its word, else its
    dependency, tag or whether it is a space); ``pipe`` annotates docs as the ruler would."""

    def __init__(self, filed: dict[tuple[int, object] | None, list[_Rule]], set_attrs) -> None:
        self._filed = filed
        self._set_attrs = set_attrs  # spaCy's own setter, the one ``AttributeRuler`` applies
        self._seen: dict[tuple, tuple[_Rule, ...]] = {}
        self._by_features: dict[tuple, tuple[_Rule, ...]] = {}  # the same, by the token's own values

    @classmethod
    def of(cls, ruler) -> TagRules | None:
        try:  # a private module of spaCy's: a version without it keeps the ruler
            from spacy.tokens._retokenize import set_token_attrs
        except ImportError:
            return None
        filed: dict[tuple[int, object] | None, list[_Rule]] = {}
        for order, entry in enumerate(ruler.patterns):
            for pattern in entry["patterns"]:
                tokens = tuple(_tests(token) for token in pattern)
                if not tokens or any(t is None for t in tokens) or not -len(tokens) <= entry["index"] < len(tokens):
                    return None
                rule = _Rule(order, tokens, entry["index"] % len(tokens), ruler.attrs[order])  # type: ignore[arg-type]
                for key in _filed_under(tokens[0]):  # type: ignore[arg-type]
                    filed.setdefault(key, []).append(rule)
        return cls(filed, set_token_attrs)

    def _rules(self, features: tuple) -> tuple[_Rule, ...]:
        """The rules a token with these features can start, in the ruler's order; kept per
        combination of the values rules are filed under (a word no rule names counts as none)."""
        mine = features[:4]
        found = self._by_features.get(mine)
        if found is not None:
            return found
        keys = [(at, features[at]) for at in _FILED_BY]
        known = tuple(value if (at, value) in self._filed else None for at, value in keys)
        found = self._seen.get(known)
        if found is None:
            rules = {rule for key in (*keys, None) for rule in self._filed.get(key, ())}
            found = self._seen[known] = tuple(sorted(rules, key=lambda r: r.order))
        if len(self._by_features) >= _REMEMBERED:
            self._by_features.clear()  # a long-running server meets every word in time
        self._by_features[mine] = found
        return found

    def __call__(self, doc):
        tokens = list(doc)
        features = [_features(t) for t in tokens]
        found = sorted(((rule.order, start, rule) for start, f in enumerate(features)
                        for rule in self._rules(f) if rule.matches(features, start)), key=lambda m: m[:2])
        for _, start, rule in found:
            self._set_attrs(tokens[start + rule.index], rule.attrs)
        return doc

    def pipe(self, docs: Iterable, batch_size: int = 0) -> Iterator:
        for doc in docs:
            yield self(doc)


_REMEMBERED = 100_000
_FILED_BY = (1, 2, 0, 3)  # LOWER, DEP, TAG, IS_SPACE: the first a rule's first token tests for given values


def _filed_under(tests: tuple[Test, ...]) -> list[tuple[int, object] | None]:
    """The keys a rule is filed under: each value its first token's first such test allows."""
    for at in _FILED_BY:
        for feature, op, arg in tests:
            if feature == at and op == "eq":
                return [(at, arg)]
            if feature == at and op == "in":
                return [(at, value) for value in sorted(arg)]  # type: ignore[call-overload]
    return [None]


def _tests(pattern: dict) -> tuple[Test, ...] | None:
    """One pattern token's tests, or None when one is not handled."""
    tests: list[Test] = []
    for key, value in pattern.items():
        at = _TOKEN_KEYS.get(key)
        if at is None:
            return None
        if isinstance(value, (str, bool)):
            tests.append((at, "eq", value))
            continue
        if not isinstance(value, dict) or len(value) != 1:
            return None
        (op, arg), = value.items()
        if op in ("IN", "NOT_IN") and isinstance(arg, list) and all(isinstance(v, str) for v in arg):
            tests.append((at, op.lower(), frozenset(arg)))
        elif op == "REGEX" and isinstance(arg, str):
            tests.append((at, "regex", re.compile(arg)))
        else:
            return None
    return tuple(tests)
