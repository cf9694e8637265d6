"""What a ``git commit`` command's message says: its lines (the subject first) and whether the
subject says what changed.

- :func:`commit_message`: the message lines of a ``git commit -m ...`` (several ``-m``, a
  heredoc ``"$(cat <<'EOF' ... EOF)"``), wrapped lines joined, trailers dropped.
- :func:`commit_worth`: whether a commit's subject says what changed (not "WIP", "Merge",
  "Bump version", "Fix typo").

Read by the Stop checkpoint (a hook command: plain string work, no :mod:`re`) and the
compactor (:mod:`memcli.compact.commits`); :func:`memcli.statements.with_reason` says whether a
line gives the change's reason.
"""

_TRAILERS = ("co-authored-by", "signed-off-by", "generated with", "noreply@", "change-id:",
             "reviewed-by:", "🤖")  # fmt: skip
_SEPARATORS = ("&&", "||", ";", "|", "\n")


def commit_message(command: str) -> list[str]:
    """The message of a ``git commit`` in ``command`` as lines: the subject first, then each
    paragraph (wrapped lines joined) and each bullet; ``[]`` when it gives no message."""
    if "commit" not in command or "git" not in command:
        return []
    rest = _after_commit(command)
    if rest is None:
        return []
    if "<<" in rest:
        return _lines(_heredoc(rest.split("<<", 1)[1]))
    messages: list[str] = []
    words = _shell_words(rest)
    for number, word in enumerate(words):
        if word in _SEPARATORS:
            break
        value = ""
        if word in ("-m", "--message") or (
            word.startswith("-") and not word.startswith("--") and word.endswith("m")
        ):
            value = words[number + 1] if number + 1 < len(words) else ""
        elif word.startswith("--message="):
            value = word[len("--message=") :]
        elif word.startswith("-m") and len(word) > 2:
            value = word[2:]
        if value and value not in _SEPARATORS:
            messages.append(value)
    return _lines("\n\n".join(messages))


def _after_commit(command: str) -> str | None:
    """The text after ``git [options] commit``, or None."""
    at = 0
    while True:
        at = command.find("git", at)
        if at < 0:
            return None
        before = command[at - 1] if at else " "
        at += 3
        if before not in " \t\n;&|(\"'":
            continue
        words = command[at : at + 300].split()
        skip_value = False
        offset = at
        for word in words:
            offset = command.find(word, offset) + len(word)
            if skip_value:
                skip_value = False
                continue
            if word in ("-C", "-c", "--git-dir", "--work-tree"):
                skip_value = True
                continue
            if word.startswith("-"):
                continue
            if word == "commit":
                return command[offset:]
            break


def _heredoc(text: str) -> str:
    """The body of a heredoc whose ``<<`` was just cut off: ``'EOF'\\n...\\nEOF``; a command
    captured as one line (``'EOF' Subject Body ... EOF )"``) gives its words as one line, up
    to the marker or the first trailer."""
    first, _, body = text.partition("\n")
    if not body:
        marker, _, words = first.strip().lstrip("-").strip().partition(" ")
        marker = marker.strip("'\"\\)")
        if marker and f" {marker}" in words:
            words = words[: words.index(f" {marker}")]
        lowered = words.lower()
        cut = min((lowered.find(t) for t in _TRAILERS if t in lowered), default=len(words))
        return words[:cut].strip()
    marker = first.strip().lstrip("-").strip().split(" ", 1)[0].strip("'\"\\)")
    out: list[str] = []
    for line in body.split("\n"):
        if marker and line.strip() == marker:
            break
        out.append(line)
    return "\n".join(out)


def _shell_words(text: str) -> list[str]:
    """Words as a POSIX shell splits them (quotes and backslashes), with the separators
    ``&&``, ``||``, ``;``, ``|`` and a line end as words of their own."""
    words: list[str] = []
    word: list[str] = []
    quote = ""
    started = False
    index = 0
    while index < len(text):
        char = text[index]
        if quote:
            if char == quote:
                quote = ""
            else:
                if char == "\\" and quote == '"' and index + 1 < len(text):
                    following = text[index + 1]
                    if following in '"\\$`':
                        char = following
                        index += 1
                    elif following == "n":  # "a\nb" written by a model means a line end
                        char = "\n"
                        index += 1
                word.append(char)
            index += 1
            continue
        if char in "'\"":
            quote = char
            started = True
        elif char in " \t\n;&|":
            if started:
                words.append("".join(word))
                word, started = [], False
            pair = text[index : index + 2]
            if pair in ("&&", "||"):
                words.append(pair)
                index += 1
            elif char in ";|\n":
                words.append(char)
        elif char == "\\" and index + 1 < len(text):
            index += 1
            word.append(text[index])
            started = True
        else:
            word.append(char)
            started = True
        index += 1
    if started:
        words.append("".join(word))
    return words


def _lines(message: str) -> list[str]:
    out: list[str] = []
    paragraph: list[str] = []

    def close() -> None:
        if paragraph:
            out.append(" ".join(paragraph))
            paragraph.clear()

    for raw in message.replace("\r", "").split("\n"):
        line = raw.strip()
        lowered = line.lower()
        if not line or any(trailer in lowered for trailer in _TRAILERS):
            close()
            continue
        bullet = line[:2] in ("- ", "* ", "• ")
        if bullet or (line[:1].isdigit() and line[1:3] in (". ", ") ")):
            close()
            line = line[2 if bullet else 3 :].strip()  # the marker, not "2FA"'s digit
            if line:
                out.append(line)
            continue
        paragraph.append(line)
        if not out:  # the subject is one line
            close()
    close()
    return [line for line in out if len(line) >= 3]


# Routine commits, by their first word (a whole word and its inflections: "wip" is not
# "Wipe ...", "temp" not "Template ...") or their first words.
_TRIVIAL_WORDS = frozenset(("wip", "merge", "revert", "reverts", "reverted", "release",
                            "releases", "released", "bump", "version", "fixup!", "squash!",
                            "amend", "amended", "typo", "typos", "format", "formats",
                            "formatted", "formatting", "lint", "linted", "linting", "cleanup",
                            "minor", "misc", "miscellaneous", "tmp", "temp", "save", "saved",
                            "checkpoint", "sync"))  # fmt: skip
_TRIVIAL_STARTS = ("initial commit", "fix typo", "clean up", "update readme", "update changelog")


def commit_worth(subject: str) -> bool:
    """Whether a commit subject says what changed (3 words or more after a conventional
    prefix like ``feat(ui):``), not a routine commit ("WIP", "Merge ...", "Bump version")."""
    words = _unprefixed(subject).lower().split()
    if len(words) < 3 or words[0].rstrip(":,.;") in _TRIVIAL_WORDS:
        return False
    return not " ".join(words[:3]).startswith(_TRIVIAL_STARTS)


def _unprefixed(subject: str) -> str:
    """ "feat(parser): stream the input" -> "stream the input"."""
    head, colon, rest = subject.partition(": ")
    if colon and len(head.split()) <= 2 and len(head) <= 24:
        return rest.strip()
    return subject.strip()
