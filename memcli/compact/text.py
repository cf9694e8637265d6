"""Text helpers of the compactor: sentences, tags, similarity shapes, and the junk guards.

Everything here is pure and cheap: it runs over every observation of a session.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable

from memcli.observed import filters


def _set(words: str) -> frozenset[str]:
    return frozenset(words.split())


_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=\S)|\n+")
_ABBREVIATION = re.compile(r"(?:\b(?:e\.g|i\.e|etc|vs|cf|approx|incl|no|fig)\.|\b[A-Z]\.)$", re.I)
WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]{2,}")  # a word of :func:`words`
_VALUE = re.compile(r"(?<![\w.])v?\d+(?:\.\d+)+(?![\w.])|(?<![\w.])\d{2,}(?![\w.])")
_ENV_VAR = re.compile(r"\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b")
_BACKTICK = re.compile(r"`([^`\n]{2,60})`")
_CODE_BLOCK = re.compile(r"```.*?(?:```|\Z)", re.S)
_MARKDOWN = re.compile(r"^\s*(?:[-*+]\s+|\d+\.\s+|#+\s+|>\s*)")
# A list item's bold label ("**Naming clarity**: ...", "**Auto-Redaction Script** (`x.py`)"):
# the label heads the item, it is not part of its sentence. With the opening `**` stripped.
_LABEL = re.compile(r"^([^*\n]{1,60}?)\*\*(\s*(?::|—|–|-\s)\s*)")
# Labels that are part of the claim ("**Root cause**: the port was stale"): kept, unbolded.
_CLAIM_LABEL = re.compile(
    r"^(?:the\s+)?(?:(?:real\s+|actual\s+)?(?:root\s+)?cause|why|reason|problem|issue|bug|fix"
    r"|decision|culprit|lesson|gotcha|pitfall|workaround|convention|rule)$",
    re.I,
)
_HEADING = re.compile(r"^\s*#{1,6}\s")
_HEADER = re.compile(r"^[^*\n]{1,60}?\*\*\s*(?:\([^()]*\))?\s*:?$")
_EMPHASIS = re.compile(r"\*\*")  # bold markers (never `__`: `__init__.py`)

STOPWORDS = _set(
    """the and for with that this from into was were are has have had not but its it's you
    your our their them they then than there here when what which while who why how all
    any can could should would will just also very now some such only each other after
    before again more most less over under onto per via use used using"""
)

# Tools and services worth a tag when a command or a sentence names them.
KNOWN_TOOLS = _set(
    """pytest tox nox unittest npm pnpm yarn node bun deno cargo rustc rustup go make cmake
    gradle gradlew mvn maven docker kubectl helm terraform pip pipx uv poetry conda ruff
    mypy black isort flake8 pylint eslint prettier tsc jest vitest mocha playwright
    cypress git postgres postgresql psql psycopg mysql redis sqlite mongodb django flask
    fastapi alembic celery react webpack vite python java javac kotlin swift xcodebuild
    bazel dotnet rails rake bundle composer phpunit nginx kafka"""
)

INSTRUCTION_FILES = (
    "CLAUDE.md",
    "AGENTS.md",
    "GEMINI.md",
    ".cursorrules",
    ".github/copilot-instructions.md",
    "CLAUDE.local.md",
)


def sentences(text: str) -> list[str]:
    """Prose sentences of a message: code blocks dropped, list markers stripped, typographic
    apostrophes made plain (the phrasing patterns spell "I've", not "I’ve")."""
    text = _CODE_BLOCK.sub("\n", filters.drop_mem_fence(filters.drop_private(text)))
    text = text.replace("\u2019", "'")
    out: list[str] = []
    pending = ""
    for part in _SENTENCE_END.split(text):
        part = f"{pending} {part}" if pending else part
        if _ABBREVIATION.search(part):
            pending = part
            continue
        pending = ""
        if _HEADING.match(part):
            continue  # a Markdown heading ("## Root Cause Analysis: E2E test 3.1") titles a text
        part = _MARKDOWN.sub("", part).strip().strip("*").strip()
        if _HEADER.match(part):
            continue  # a bold header alone ("**Auto-Redaction Script** (`x.py`)")
        part = _LABEL.sub(_unlabelled, part)
        if len(part) >= 3:
            out.append(part)
    if pending.strip():
        out.append(pending.strip())
    return out


_STATUS_MARKS = frozenset("✅✔☑✓❌✗✘❎🟢🔴")


def status_line(sentence: str) -> bool:
    """A checklist line ("✅ `export.py` (new, 10KB)") or a Markdown table row ("| Security |
    8.5/10 | needs validation |"): a status or a cell, never a cause or a title."""
    if sentence[:1] == "|" and sentence.count("|") >= 2:
        return True
    return sentence[:1] in _STATUS_MARKS


def _unlabelled(label: re.Match[str]) -> str:
    """A topic label goes ("**Naming**: ..."); a claim's label stays ("Root cause: ...")."""
    return label.group(1) + label.group(2) if _CLAIM_LABEL.match(label.group(1).strip()) else ""


def one_line(text: str, limit: int = 200) -> str:
    return filters.one_line(text, limit)


def title_of(sentence: str, limit: int = 200) -> str:
    """A sentence as an item title: one line, no closing period, cut at a word boundary."""
    line = filters.one_line(_EMPHASIS.sub("", sentence), 10_000).rstrip(" .;:,")
    if len(line) <= limit:
        return line
    cut = line[: limit - 1].rsplit(" ", 1)[0]
    return cut.rstrip(" ,;:") + "…"


def said_whole(sentence: str) -> str:
    """A sentence as an item's body: one line, whole (a long one's title is cut; the body
    keeps the words the title lost), ending with its stop."""
    line = filters.one_line(_EMPHASIS.sub("", sentence), 10_000).rstrip(" .;:,")
    return line + "."


def words(text: str) -> set[str]:
    """Lower-case content words (no numbers, no stopwords): the shape of a text."""
    return {w for w in WORD.findall(text.lower()) if w not in STOPWORDS}


def values(text: str) -> set[str]:
    """Concrete values in a text: versions, ports and other numbers of two digits or more."""
    return {v.lstrip("v") for v in _VALUE.findall(text)}


def env_vars(text: str) -> list[str]:
    return list(dict.fromkeys(_ENV_VAR.findall(text)))


def jaccard(a: set[str], b: set[str]) -> float:
    if not a or not b:
        return 0.0
    return len(a & b) / len(a | b)


def containment(small: set[str], big: set[str]) -> float:
    """Share of ``small`` found in ``big``."""
    if not small:
        return 0.0
    return len(small & big) / len(small)


def tags_from(texts: Iterable[str], extra: Iterable[str] = (), limit: int = 6) -> list[str]:
    """Tags: named tools, environment variables, backticked identifiers, then ``extra``."""
    found: dict[str, None] = {}
    for tag in extra:
        if tag:
            found.setdefault(tag.lower(), None)
    for text in texts:
        for word in WORD.findall(text):
            if word.lower() in KNOWN_TOOLS:
                found.setdefault(word.lower(), None)
        for var in env_vars(text):
            found.setdefault(var.lower(), None)
        for span in _BACKTICK.findall(text):
            if re.fullmatch(r"[A-Za-z][\w.-]{1,30}", span):
                found.setdefault(span.lower(), None)
    clean = [re.sub(r"[^a-z0-9_.-]", "", t) for t in found]
    return [t for t in dict.fromkeys(clean) if t][:limit]


def digest_id(*parts: str) -> str:
    """A deterministic item id (10 Crockford base32 characters) from its defining parts."""
    alphabet = "0123456789abcdefghjkmnpqrstvwxyz"
    number = int.from_bytes(hashlib.sha256("\0".join(parts).encode("utf-8")).digest()[:8], "big")
    chars = []
    for _ in range(10):
        number, rest = divmod(number, 32)
        chars.append(alphabet[rest])
    return "".join(chars)


def normalized(text: str) -> str:
    return " ".join(WORD.findall(text.lower()))


def looks_like_instructions(prompt: str) -> bool:
    """A prompt that pastes instructions or a document rather than talking to the assistant."""
    lowered = prompt.lower()
    markers = ("claude.md", "agents.md", "<system-reminder>", "<command-name>", "<command-message>")
    if any(m in lowered for m in markers):
        return True
    if lowered.lstrip().startswith(("caveat:", "<local-command", "# ")):
        return True
    return prompt.count("\n") > 25


class InstructionFiles:
    """The sentences of the repository's assistant instruction files (CLAUDE.md and kin).

    A convention already written down there is a restated instruction, never new memory.
    """

    def __init__(self, texts: Iterable[str]) -> None:
        self._normalized: list[str] = []
        self._shapes: list[set[str]] = []
        for text in texts:
            for sentence in sentences(text):
                shape = words(sentence)
                if shape:
                    self._normalized.append(normalized(sentence))
                    self._shapes.append(shape)
        self._all = " \n ".join(self._normalized)

    def contains(self, sentence: str) -> bool:
        norm = normalized(sentence)
        if len(norm) >= 12 and norm in self._all:
            return True
        shape = words(sentence)
        return any(jaccard(shape, other) >= 0.7 for other in self._shapes)
