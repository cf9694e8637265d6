"""Facts of a session that are memory without a fix: refused tool calls, commands that never
ended, environment failures the session worked around, and sub-agents' reports.

- A *refused* write or command (the user declined it, a permission rule blocked it) is an
  ``env`` fact: the next session should not try the same thing blindly.
- An *interrupted* command (a dev server, a watch-mode test runner, a prompt waiting for
  input) is an ``env`` fact: it does not end by itself.
- An environment failure never fixed (``pnpm: command not found``, a missing package, a busy
  port) is an ``env`` fact even when the session went another way.

- A *workaround*: a command failing with a telling line, then the same command passing with
  options the failing run had not (``--no-verify``, ``--non-interactive``): a verified ``env``
  fact (the options are the remedy), never a fix of the code.

The others are ``assumed`` and marked as restatements when nothing but the failure backs
them, so the store's existing knowledge is not repeated.
"""

from __future__ import annotations

import re

from memcli import signals
from memcli.checkpoint import candidates
from memcli.compact import commands, text
from memcli.compact.commands import Command
from memcli.compact.drafts import Draft, body_lines, evidence, evidence_of, importance
from memcli.compact.observations import Obs

# A probe for a tool and nothing else: `which gitleaks`, `command -v uv 2>/dev/null`.
_PROBE = re.compile(
    r"^\s*(?:which|type|hash|command\s+-v|where(?:\.exe)?)\s+([\w.+-]+)"
    r"(?:\s+(?:[12]?>\s*/dev/null|2>&1|[12]?>&[12]))*\s*$"
)
# A command that prepares the environment: installs, syncs, starts a service, activates.
_SETUP = re.compile(
    r"(?:^|[;&|]\s*)(?:sudo\s+)?(?:\S*/)?(?:(?:pip3?|uv|poetry|pipx|npm|pnpm|yarn|bun|gem|cargo"
    r"|go|brew|apt(?:-get)?|dnf|yum|apk|pacman|conda|mamba|choco|winget|composer|bundle)\s+"
    r"(?:\S+\s+)?(?:install|add|sync|i|ci|get|upgrade|update|setup|restore)\b"
    r"|(?:python3?|py)\s+-m\s+pip\s+install\b|(?:systemctl|service|docker|docker-compose"
    r"|brew services|pg_ctl)\s+(?:\S+\s+)?(?:start|up|run|restart)\b"
    r"|(?:source|\.)\s+\S*activate\b|export\s+\w+=|(?:nvm|pyenv|asdf|rustup)\s+\w+)"
)
SUBAGENT_TOOLS = frozenset(("task", "agent", "spawn_agent", "subagent", "dispatch_agent"))


def refused(o: Obs) -> bool:
    """A tool call the user or a permission rule refused."""
    return o.ok is False and (signals.denied(o.excerpt) or signals.denied(o.summary))


def interrupted(o: Obs) -> bool:
    return o.summary.startswith("$ ") and o.ok is None and "-> interrupted" in o.summary


def is_subagent_report(o: Obs) -> bool:
    return o.kind == "other" and o.tool.lower() in SUBAGENT_TOOLS and bool(o.excerpt.strip())


def drafts(
    obs: list[Obs],
    unresolved_failures: list[Obs],
    session: str,
    explained: frozenset[str] = frozenset(),
) -> list[Draft]:
    """The fact drafts of one session; ``explained``: ids of refusals an episode resolved."""
    out: list[Draft] = []
    for o in obs:
        if refused(o) and o.id not in explained:
            what = f"`{o.input}`" if o.summary.startswith("$ ") else ", ".join(o.files[:2])
            what = what or o.tool or "a tool call"
            reason = text.one_line(o.excerpt or o.summary, 160)
            # A refusal that never names the call (a permission mode's) is one fact per tool.
            key = what if o.input and o.input[:40] in reason else f"{o.tool}\0{reason}"
            named = f"`{commands.shown(o.input)}`" if what.startswith("`") else what
            out.append(
                _fact(
                    "refused",
                    key,
                    f"{named} was refused in this repository: ask before trying it again",
                    f"Refused: {reason}",
                    o,
                    session,
                )
            )
        elif interrupted(o):
            out.append(
                _fact(
                    "interrupted",
                    o.input,
                    f"`{commands.shown(o.input)}` does not end by itself: it had to be interrupted",
                    "Run it in the background or with a timeout (a server, a watch mode or a "
                    "prompt waiting for input).",
                    o,
                    session,
                )
            )
    for o in unresolved_failures:
        kind, line = signals.failure(o.excerpt)
        if kind not in signals.ENVIRONMENT:
            continue
        if kind == "shell":
            out.append(shell_failure(line, o, None, session))
            continue
        if kind == "syntax":
            out.append(shell_syntax(line, o, session))
            continue
        out.append(
            _fact(
                "environment",
                f"{kind}\0{line}",
                # the command cut short, so the title keeps the failure
                f"`{text.one_line(commands.shown(o.input), 100)}` fails in this environment: "
                f"{line}",
                f"Symptom ({kind.replace('-', ' ')}): {line}",
                o,
                session,
            )
        )
    return out


def _fact(rule: str, key: str, title: str, body: str, o: Obs, session: str) -> Draft:
    clean = text.title_of(title)
    return Draft(
        rule=rule,
        key=key,
        kind="env",
        title=clean,
        body=f"{clean}.\n{body}\n",
        ts=o.ts,
        session=session,
        tags=text.tags_from([o.input, title], extra=[rule]),
        importance=importance("env", False),
        anchors=[{"path": f} for f in o.files[:3] if f and not f.startswith(("/", ".."))],
        evidence=[evidence(o.excerpt or o.summary, o.raw, session)],
        restatement=True,
    )


def workaround(
    cmd: Command, line: str, first: Obs, passed: Obs, failures: int, session: str
) -> Draft | None:
    """The env fact of a command that passed once given other options; None when no option
    was added or the failure had no telling line (then it is flakiness)."""
    added = candidates.added_flags(first.input, passed.input)
    steps = [] if added else candidates.added_steps(first.input, passed.input)
    if not (added or steps) or not line:
        return None
    flags = " ".join(added) or " && ".join(steps)
    how = "with" if added else "after"
    title = text.title_of(
        f"`{cmd.key}` fails here with {line.rstrip(':')}: it passes {how} `{flags}`"
    )
    proof = (evidence(line, first.raw, session), evidence(passed.summary, passed.raw, session))
    return Draft(
        rule="env",
        key="\0".join([cmd.key, "workaround", commands.signature(line)]),
        kind="env",
        title=title,
        body=body_lines(
            f"Symptom: `{cmd.text}` failed with: {line}",
            f"Workaround: `{passed.input}` passed ({'added' if added else 'after'} `{flags}`).",
        ),
        ts=passed.ts or first.ts,
        session=session,
        tags=text.tags_from([cmd.text, line, flags], extra=[cmd.program]),
        confidence="verified",
        importance=importance("env", True, failures - 1),
        evidence=[e for e in proof if e],
        signature=commands.signature(line),
    )


def shell_failure(line: str, first: Obs, passed: Obs | None, session: str) -> Draft:
    """The shell failing before a command ran (Git Bash's fork emulation, a process limit):
    an env fact about the machine, never about the command or its options; verified when
    the command passed when run again."""
    title = text.title_of(
        f"Commands can fail here before they run, in the shell itself ({line.rstrip(':')}): "
        "run the same command again"
    )
    proof = [evidence(line, first.raw, session)]
    if passed is not None:
        proof.append(evidence(passed.summary, passed.raw, session))
    return Draft(
        rule="env",
        key="shell",  # one fact of the machine, whichever of its failures showed it
        kind="env",
        title=title,
        body=body_lines(
            f"Symptom: `{commands.shown(first.input)}` failed with: {line}",
            f"Then: `{commands.shown(passed.input)}` passed when run again."
            if passed is not None
            else "",
        ),
        ts=(passed.ts if passed is not None else "") or first.ts,
        session=session,
        tags=text.tags_from([line], extra=["shell"]),
        confidence="verified" if passed is not None else "assumed",
        importance=importance("env", passed is not None),
        evidence=[e for e in proof if e],
        signature=commands.signature(line),
    )


# What in a command line the shell may have stumbled on, named in the lesson: the next
# session needs the construct to avoid, not this one command.
_CONSTRUCTS = (
    ("<<", "a here-document (`<<`) with more commands after it"),
    ("`", "backticks (another shell's escape character, or command substitution)"),
    ("$(", "a command substitution (`$(...)`)"),
)


def shell_syntax(line: str, o: Obs, session: str) -> Draft:
    """A command line the shell could not parse, never made to pass as written: an env fact
    on how to write commands for this shell (what it holds that the shell may have stumbled
    on), since nothing the command would have done ran."""
    held = [what for marker, what in _CONSTRUCTS if marker in o.input]
    # The error first: a long command line is cut from the title, never the shell's words.
    title = f"The shell could not parse a command line ({line.rstrip(':')}): " + (
        f"`{commands.shown(o.input)}`"
    )
    body = f"Symptom: {line}\nNothing ran: the shell rejected the command line itself."
    if held:
        body += " It holds " + "; ".join(held) + ": split it up or quote it otherwise."
    return _fact("syntax", f"syntax\0{line}", title, body, o, session)


def is_setup(command_line: str) -> bool:
    """A command that prepares the environment (an install, a service started)."""
    return _SETUP.search(command_line) is not None


def probed_tool(o: Obs) -> str:
    """The tool a probe command looks for (`which gitleaks` -> gitleaks), or ""."""
    found = _PROBE.match(o.input)
    return found.group(1) if found else ""


def missing_tools(obs: list[Obs], session: str) -> list[Draft]:
    """A probe for a tool that failed (`which gitleaks` exits 1) and nothing later that ran
    or found the tool: the tool is not installed here."""
    out: list[Draft] = []
    for o in obs:
        tool = probed_tool(o) if o.failed else ""
        if not tool:
            continue
        later = [x for x in obs[o.index + 1 :] if x.passed]
        if any(tool in (probed_tool(x), commands.parse(x.input).program) for x in later):
            continue  # installed meanwhile, or found after all
        shown = text.one_line(o.excerpt, 120)
        out.append(
            _fact(
                "missing-tool",
                tool,
                f"`{tool}` is not installed here: `{o.input}` finds nothing",
                f"Symptom: `{o.input}` failed" + (f" ({shown})" if shown else "") + ".",
                o,
                session,
            )
        )
    return out


def setup_progress(
    cmd: Command, failures: list[Obs], between: list[Obs], session: str
) -> Draft | None:
    """An environment failure, a setup command, then the same command failing *differently*:
    the setup fixed the environment (the run got further), whatever failed next.
    ``between``: the passing commands that are neither the command itself nor a look around."""
    for number, first in enumerate(failures):
        kind, line = signals.failure(first.excerpt)
        if kind not in signals.ENVIRONMENT:
            continue
        for later in failures[number + 1 :]:
            if commands.signature(commands.decisive_line(later.excerpt, later.summary)) == (
                commands.signature(line)
            ):
                continue  # the same failure again: the setup did not help
            setups = [o for o in between if first.index < o.index < later.index]
            if not setups:
                continue
            setup = setups[-1]
            title = text.title_of(
                f"Run `{commands.shown(setup.input)}` before `{commands.shown(cmd.text)}`, "
                f"else: {line}"
            )
            return Draft(
                rule="env",
                key="\0".join([cmd.key, "setup", commands.signature(line)]),
                kind="env",
                title=title,
                body=body_lines(
                    f"Symptom ({kind.replace('-', ' ')}): `{first.input}` failed with: {line}",
                    f"Setup: `{setup.input}`; the next run got past it.",
                ),
                ts=later.ts or first.ts,
                session=session,
                tags=text.tags_from([cmd.text, line, setup.input], extra=[cmd.program]),
                importance=importance("env", False),
                evidence=evidence_of(
                    session,
                    (line, first.raw),
                    (setup.summary, setup.raw),
                    (later.summary, later.raw),
                ),
                signature=commands.signature(line),
            )
    return None
