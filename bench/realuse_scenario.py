"""The real-use scenario of ``bench/realuse.py``: loading, the documentation paragraphs, checks.

The scenario file (``bench/data/realuse.toml``, written for this project) holds three sources of
memories and the questions asked about them:

- ``[[docs]]``: documentation and licence texts of packages installed in this environment, named by
  distribution and file (``METADATA`` means the long description). They are read from the
  installed files at bench time, never copied into the repository, and split into paragraphs
  (``paragraphs``): blocks between blank lines; fenced code blocks, reStructuredText directives,
  indented code (unless ``indented_code = false``, for licences indented as a whole) and ``>>>``
  examples, raw HTML, badge and image lines and heading underlines are
  dropped; a block shorter than ``min_chars`` (after that) is dropped; the first
  ``max_paragraphs`` are kept. A kept paragraph keeps its own words and line breaks.
- ``[[sessions]]``: a personal assistant's chat memory, one message per put, each with its own
  time (the session's ``start`` plus ``minutes_apart`` per message).
- ``[[lme_sessions]]``: user/assistant conversations in the style of LongMemEval, one
  ``put_many`` per session with the speaker of each turn.

Each ``[[questions]]`` entry (numbered per source in file order: ``docs-01``, ...) names its
``source`` (docs, assistant, lme), its ``kind``, the question, ``gold`` substrings (any one found
in a result's text makes it a hit), optionally ``stale`` substrings (the value a changed fact had
before) and ``now`` (the question's time; default ``meta.now``). Matching (``normalise``) is
case-insensitive, with runs of whitespace collapsed to one space and typographic apostrophes and
quotes made plain, so a paragraph's line breaks and a coreference rewrite of a pronoun do not
decide a hit; gold substrings are chosen from the content words of the answer for that reason.

``check`` fails loudly when a gold or stale substring is not found verbatim (after
``normalise``) in the texts put for its source: installed package versions change, and a
benchmark whose answer is not in its memories measures nothing.
"""

from __future__ import annotations

import importlib.metadata
import re
import tomllib
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

SCENARIO = Path(__file__).with_name("data") / "realuse.toml"
SOURCES = ("docs", "assistant", "lme")
# which agents each source's memories go into (and so where its questions are asked)
AGENT_SOURCES = {"docs": ("docs",), "assistant": ("assistant",), "mixed": ("docs", "assistant"), "lme": ("lme",)}
_MARKUP_LINE = re.compile(r"^\s*(<|\[!\[|!\[|\[[^\]]+\]:\s|\|[\w-]+\||[=\-~^*#`]{3,}\s*$|:\w+:|\.\. )")
_UNDERLINE = re.compile(r"^\s*[=\-~^*#`]{3,}\s*$")
_CODE_LINE = re.compile(r"^( {4}|\t|>>> |\.\.\. |\$ )")


@dataclass(frozen=True, slots=True)
class Put:
    """One memory as it is stored: a single ``put`` (docs, assistant) or one turn of a session."""

    source: str
    text: str
    event_date: datetime
    session: str
    speaker: str | None = None
    origin: str | None = None  # "package/file" for documentation paragraphs


@dataclass(frozen=True, slots=True)
class Question:
    id: str
    source: str
    kind: str
    text: str
    gold: tuple[str, ...]
    stale: tuple[str, ...]
    now: datetime


@dataclass(frozen=True, slots=True)
class Scenario:
    now: datetime
    puts: tuple[Put, ...]
    questions: tuple[Question, ...]
    raw: dict

    def puts_of(self, source: str) -> list[Put]:
        return [p for p in self.puts if p.source == source]


def normalise(text: str) -> str:
    text = text.replace("\u2019", "'").replace("\u2018", "'").replace("\u201c", '"').replace("\u201d", '"')
    return " ".join(text.split()).casefold()


def read_raw(path: Path = SCENARIO) -> dict:
    with path.open("rb") as fh:
        return tomllib.load(fh)


def doc_text(package: str, file: str) -> str:
    """The installed text: ``METADATA`` is the long description, anything else a dist-info file."""
    try:
        dist = importlib.metadata.distribution(package)
    except importlib.metadata.PackageNotFoundError:
        raise SystemExit(f"realuse: the scenario reads {package!r}, which is not installed here") from None
    if file == "METADATA":
        meta = dist.metadata
        text = meta.get_payload() or meta.get("Description") or ""
    else:
        text = dist.read_text(file) or ""
    if not text.strip():
        raise SystemExit(f"realuse: {package} has no text in {file!r} (installed version changed?)")
    return text


def _without_fences(text: str) -> str:
    out, fenced = [], False
    for line in text.splitlines():
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
            out.append("")
        elif not fenced:
            out.append(line)
    return "\n".join(out)


def _clean_block(block: str, indented_code: bool) -> str | None:
    lines = [line for line in block.splitlines() if not _UNDERLINE.match(line)]
    if not lines or lines[0].lstrip().startswith((".. ", ">>> ")):
        return None
    if indented_code and _CODE_LINE.match(lines[0]):
        return None
    if all(_MARKUP_LINE.match(line) for line in lines):
        return None
    return "\n".join(lines).strip()


def paragraphs(text: str, *, min_chars: int = 40, max_paragraphs: int = 1_000, indented_code: bool = True) -> list[str]:
    """Prose paragraphs of a README or licence, in order (rules in the module docstring)."""
    kept: list[str] = []
    for block in re.split(r"\n\s*\n", _without_fences(text)):
        para = _clean_block(block, indented_code)
        if para and len(para) >= min_chars:
            kept.append(para)
        if len(kept) >= max_paragraphs:
            break
    return kept


def _doc_puts(raw: dict, now: datetime) -> list[Put]:
    puts = []
    for doc in raw["docs"]:
        day = now - timedelta(days=doc["days_before"])
        text = doc_text(doc["package"], doc["file"])
        paras = paragraphs(text, min_chars=doc.get("min_chars", 40), max_paragraphs=doc.get("max_paragraphs", 1_000),
                           indented_code=doc.get("indented_code", True))
        origin = f"{doc['package']}/{doc['file']}"
        puts += [Put("docs", p, day + timedelta(seconds=i), origin, origin=origin) for i, p in enumerate(paras)]
    return puts


def _session_puts(raw: dict) -> list[Put]:
    puts = []
    for session in raw["sessions"]:
        start = datetime.fromisoformat(session["start"])
        step = timedelta(minutes=session.get("minutes_apart", 2))
        puts += [Put("assistant", m, start + i * step, session["id"]) for i, m in enumerate(session["messages"])]
    return puts


def _lme_puts(raw: dict) -> list[Put]:
    puts = []
    for session in raw["lme_sessions"]:
        start = datetime.fromisoformat(session["start"])
        for i, (speaker, text) in enumerate(session["turns"]):
            puts.append(Put("lme", text, start + timedelta(minutes=i), session["id"], speaker=speaker))
    return puts


def _questions(raw: dict, now: datetime) -> list[Question]:
    """Questions in file order, numbered per source (``docs-01``, ``assistant-01``, ...)."""
    out, counts = [], dict.fromkeys(SOURCES, 0)
    for q in raw["questions"]:
        counts[q["source"]] += 1
        when = datetime.fromisoformat(q["now"]) if "now" in q else now
        out.append(Question(f"{q['source']}-{counts[q['source']]:02d}", q["source"], q["kind"], q["q"],
                            tuple(q["gold"]), tuple(q.get("stale", ())), when))
    return out


def load(path: Path = SCENARIO, *, with_docs: bool = True) -> Scenario:
    """The scenario with its puts in order; ``with_docs=False`` skips reading installed files."""
    raw = read_raw(path)
    now = datetime.fromisoformat(raw["meta"]["now"])
    puts = (_doc_puts(raw, now) if with_docs else []) + _session_puts(raw) + _lme_puts(raw)
    return Scenario(now, tuple(puts), tuple(_questions(raw, now)), raw)


def missing_golds(scenario: Scenario) -> list[str]:
    """Every gold or stale substring not found in the texts put for its question's source."""
    corpus = {s: [normalise(p.text) for p in scenario.puts_of(s)] for s in SOURCES}
    problems = []
    for q in scenario.questions:
        texts = corpus.get(q.source)
        if not texts:
            continue
        for label, subs in (("gold", q.gold), ("stale", q.stale)):
            problems += [f"{q.id} {label} {s!r}" for s in subs if not any(normalise(s) in t for t in texts)]
    return problems


def check(scenario: Scenario) -> None:
    problems = missing_golds(scenario)
    if problems:
        raise SystemExit("realuse: gold substrings not found in the puts (installed texts changed?):\n  "
                         + "\n  ".join(problems))
