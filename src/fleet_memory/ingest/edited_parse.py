"""The parse of a unit whose text coreference edited, made from the parse step's parse instead of
parsing the new string again (``assemble``).

Coreference writes a name where a pronoun stood ("I moved to Porto" → "Caroline moved to Porto",
"my sister" → "Caroline's sister") and puts the verb after it into the third person ("I am" →
"Caroline is"). Such an edit changes words, not the sentence's structure, so the edited parse
keeps the tree: the name takes the pronoun's place (its dependency and head; a possessive's name
is its noun's ``poss``, with a ``case`` "'s" on it, as spaCy attaches one), the words before a
longer name's last word are its compounds, a capitalised name becomes an entity span (the
referent's label, PERSON for a speaker), and an edited verb keeps its place with a third-person
tag. A unit of several facts joins their parses in order, as its text joins theirs.

Supersession reads the units' parses (holders, relation words, masked texts), and parsing every
edited unit again was most of its time on a put of chat turns, where nearly every sentence says
"I". What this cannot tell is how the model would read the new string. On LoCoMo's chat turns about
one unit in fifteen reads differently to supersession (holders, relation words or masked text), most
often where the small model misreads the new string ("Caroline bets they bring lots of joy" has no
subject for it) or reads "my sister Carol" and "Ann's sister Carol" differently; and a sentence
in which the recogniser was not run (nothing in it can name anyone: ``providers.nlp.may_name``)
has no date span in the edited parse either ("this month"), where the model's parse of the text
that now names someone may. The result must render to the unit's text exactly, or there is none
and supersession parses the text itself.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from ..providers.nlp import Parsed, Span, Token

__all__ = ["edited", "joined", "render", "rendered", "sentence_start"]

_POSSESSIVES = {"my", "our", "your", "his", "her", "their"}
_PAST = {"was": "VBD"}


def sentence_start(tokens: Sequence[Token], i: int) -> int:
    """Where the sentence of token ``i`` starts in a parse that may hold several (a fact the
    splitter kept in one piece, "christmas went fine!! he was …"): after the last sentence-final
    mark before it."""
    return max((j + 1 for j in range(i) if tokens[j].tag == "."), default=0)


def render(tokens: Sequence[Token], edits: Mapping[int, str] | None = None) -> str:
    """The text of ``tokens`` (each with the whitespace after it), stripped, with coreference's
    ``edits`` (token index → what replaces it) written in: the text coreference gives, and the one
    an edited parse must give back."""
    edits = edits or {}
    return "".join(edits.get(i, t.text) + t.ws for i, t in enumerate(tokens)).strip()


def rendered(parse: Parsed) -> str:
    """The text a parse was made of."""
    return render(parse.tokens)


def _is_pronoun_slot(tok: Token) -> bool:
    return tok.pos == "PRON" or tok.text.lower() in ("i", "me", "my")


def _name_pieces(tok: Token, words: list[str]) -> tuple[list[tuple[str, str, str, str]], int]:
    """(text, tag, pos, dep) of the words that replace a pronoun, and which one is the anchor (takes the
    pronoun's place in the tree)."""
    last = words[-1]
    case = "'s" if last.endswith("'s") and len(last) > 2 else "'" if last.endswith("'") and len(last) > 1 else ""
    if case:
        words = words[:-1] + [last[: -len(case)]]
    anchor = len(words) - 1
    pieces = []
    for k, word in enumerate(words):
        if word.lower() in _POSSESSIVES:
            tag, pos = "PRP$", "PRON"
        elif word[:1].isupper():
            tag, pos = "NNP", "PROPN"
        else:
            tag, pos = "NN", "NOUN"
        dep = ("poss" if case else tok.dep) if k == anchor else ("poss" if tag == "PRP$" else "compound")
        pieces.append((word, tag, pos, dep))
    if case:
        pieces.append((case, "POS", "PART", "case"))
    return pieces, anchor


def _beside_relation(tokens: Sequence[Token], i: int,
                     name: list[str]) -> tuple[list[tuple[str, str, int | None]], int]:
    """(text, dep, head piece or None for the relation's own head) of a relation and the name
    coreference wrote beside it, and which one takes the
    relation's place in the tree, as spaCy reads such a text: "my daughter Aoife" keeps "daughter"
    in its place with "Aoife" its apposition; "Dad Tom" makes "Dad" a compound of "Tom", which takes
    the place. A longer name's first words are compounds of its last."""
    owned = any(k.head == i and k.dep == "poss" for j, k in enumerate(tokens) if j != i)
    last = len(name)  # the name's last word, counting the relation as piece 0
    anchor = 0 if owned else last
    pieces: list[tuple[str, str, int | None]] = [(tokens[i].text, tokens[i].dep if owned else "compound",
                                                  None if owned else last)]
    pieces += [(word, "compound", last) for word in name[:-1]]
    pieces.append((name[-1], "appos" if owned else tokens[i].dep, 0 if owned else None))
    return pieces, anchor


def edited(parse: Parsed, edits: Sequence[tuple[int, str]], labels: Mapping[str, str],
           drop_last: bool = False) -> Parsed | None:
    """``parse`` with coreference's ``edits`` (token index → the words that replace it; a leading space
    belongs after the token before) applied; ``labels``: a referent's entity label by its surface.
    ``drop_last``: the parse step appended a full stop the text does not have. None when the edits
    do not fit the parse (a token that hangs on the dropped full stop)."""
    tokens = parse.tokens[:-1] if drop_last else parse.tokens
    if drop_last and any(t.head >= len(tokens) for t in tokens):
        return None
    by_index = dict(edits)
    groups: list[list[list]] = []  # per original token: [text, ws, tag, pos, dep, head] with head ("orig", j) or ("own", k)
    anchors: list[int] = []
    names: list[tuple[int, int, int, str]] = []  # (original index, first name word, how many, label)
    named: dict[int, int] = {}  # a relation with a name written beside it: where the name's last word is
    for i, tok in enumerate(tokens):
        if i not in by_index:
            head = ("at", tok.head, named[tok.head]) if tok.dep == "case" and tok.head in named else ("orig", tok.head)
            groups.append([[tok.text, tok.ws, tok.tag, tok.pos, tok.dep, head]])
            anchors.append(0)
            continue
        words = by_index[i].split()
        if not words:
            return None
        if by_index[i].startswith(" ") and groups:
            groups[-1][-1][1] = " "
        if len(words) > 1 and words[0] == tok.text and not _is_pronoun_slot(tok):  # a relative's name written beside
            pieces, anchor = _beside_relation(tokens, i, words[1:])
            group = [[text, " ", "NNP" if k else tok.tag, "PROPN" if k else tok.pos, dep,
                      ("orig", tok.head) if head is None else ("own", head)]
                     for k, (text, dep, head) in enumerate(pieces)]
            group[-1][1] = tok.ws
            groups.append(group)
            anchors.append(anchor)
            names.append((i, 1, len(pieces) - 1, labels.get(" ".join(words[1:]), "PERSON")))
            named[i] = len(pieces) - 1  # a "'s" after it is the name's ("my daughter Aoife's")
            continue
        if not _is_pronoun_slot(tok):  # a verb put into the third person, a contraction written out
            tag = _PAST.get(words[0].lower(), "VBZ" if tok.tag == "VBP" else tok.tag)
            groups.append([[" ".join(words), tok.ws, tag, tok.pos, tok.dep, ("orig", tok.head)]])
            anchors.append(0)
            continue
        pieces, anchor = _name_pieces(tok, words)
        group = [[text, " ", tag, pos, dep, ("orig", tok.head) if k == anchor else ("own", anchor)]
                 for k, (text, tag, pos, dep) in enumerate(pieces)]
        if len(pieces) > anchor + 1:  # the name's "'s" is glued to it
            group[anchor][1] = ""
        group[-1][1] = tok.ws
        groups.append(group)
        anchors.append(anchor)
        if all(w[:1].isupper() for w, *_ in pieces[: anchor + 1]):
            surface = " ".join(w for w, *_ in pieces[: anchor + 1])
            names.append((i, 0, anchor + 1, labels.get(surface, "PERSON")))
    return _assemble(groups, anchors, parse.ents, len(tokens), set(by_index), names)


def _assemble(groups: list[list[list]], anchors: list[int], ents: Sequence[Span], count: int,
              changed: set[int], names: list[tuple[int, int, int, str]]) -> Parsed:
    """The tokens of ``groups`` in order, each head moved to where its token went (a replaced
    pronoun's place is its name's anchor); the spans of untouched tokens moved, the names added."""
    starts, at = [], 0
    for group in groups:
        starts.append(at)
        at += len(group)
    out = []
    for i, group in enumerate(groups):
        for text, ws, tag, pos, dep, (kind, j, *at) in group:
            head = starts[j] + anchors[j] if kind == "orig" else starts[j] + at[0] if kind == "at" else starts[i] + j
            out.append(Token(text, ws, tag, pos, dep, head))
    spans = [Span(e.text, e.label, starts[e.start], starts[e.end - 1] + 1)
             for e in ents if e.end <= count and not any(k in changed for k in range(e.start, e.end))]
    for i, first, n, label in names:
        words = [out[starts[i] + first + k].text for k in range(n)]
        spans.append(Span(" ".join(words), label, starts[i] + first, starts[i] + first + n))
    return Parsed(tuple(out), tuple(sorted(spans, key=lambda s: s.start)))


def joined(parses: Sequence[Parsed]) -> Parsed:
    """Parses of consecutive texts as one parse of the texts joined by a space."""
    tokens: list[Token] = []
    spans: list[Span] = []
    for parse in parses:
        offset = len(tokens)
        if tokens and not tokens[-1].ws:
            tokens[-1] = replace(tokens[-1], ws=" ")
        tokens.extend(Token(t.text, t.ws, t.tag, t.pos, t.dep, t.head + offset) for t in parse.tokens)
        spans.extend(Span(s.text, s.label, s.start + offset, s.end + offset) for s in parse.ents)
    return Parsed(tuple(tokens), tuple(spans))
