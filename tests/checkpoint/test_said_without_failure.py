"""Lessons said with no failing command near them, driven through the hooks `mem hooks
install` writes for Claude Code (a growing transcript, each tool call a `PostToolUse`): a
commit message that says what changed and why, a change of approach in the closing summary,
and a finding about the project said in a note between tool calls. The checkpoint names
them; narration around them (a list of files edited, a plan, a guess) it does not."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_checkpoint_hooks import HookedTranscript, Session

from memcli import api

SESSION = "said-1"
HEREDOC_COMMIT = (
    "git add pnpm-workspace.yaml package.json && git commit -m \"$(cat <<'EOF'\n"
    "Use pnpm workspaces for the monorepo\n\n"
    "npm installed every package's dependencies twice, so installs took\n"
    "minutes; one workspace keeps a single lock file.\n\n"
    'Co-Authored-By: Claude <noreply@anthropic.com>\nEOF\n)"'
)
FINAL = (
    "All set. Summary of the changes:\n\n"
    "- Switched the log parser to streaming mode to bound memory on large files\n"
    "- Updated `src/parser.ts` and `src/cli.ts`\n"
    "- Added tests in `tests/parser.test.ts`\n"
)


class Transcript(HookedTranscript):
    """The session's transcript, with a prompt and a shell call in Claude Code's shapes."""

    def prompt(self, text: str) -> None:
        self.append({"type": "user", "message": {"role": "user", "content": text}})
        self.session.fire({**self.base("UserPromptSubmit"), "prompt": text})

    def bash(self, note: str, command: str, output: str = "") -> None:
        self.calls += 1
        call = f"toolu_{self.calls:03d}"
        used = {"type": "tool_use", "id": call, "name": "Bash", "input": {"command": command}}
        # As Claude Code writes them: a line per content block, each after the line's
        # metadata (far more than a few hundred characters of it before the command).
        meta = {"parentUuid": "0" * 36, "isSidechain": False, "cwd": "/" + "w" * 300,
                "userType": "external", "version": "2.0.72"}  # fmt: skip
        self.append({**meta, "type": "assistant", "message": {"role": "assistant",
                     "content": [{"type": "text", "text": note}]}})  # fmt: skip
        self.append({**meta, "type": "assistant", "message": {"role": "assistant",
                     "content": [used]}})  # fmt: skip
        self.session.fire({**self.base("PostToolUse"), "tool_name": "Bash",
                           "tool_input": {"command": command}, "tool_use_id": call,
                           "tool_response": {"stdout": output, "stderr": "",
                                             "interrupted": False}})  # fmt: skip
        self.append({"type": "user", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": call, "content": output}]}})  # fmt: skip


@pytest.fixture
def transcript(repo: Path, tmp_path: Path) -> Transcript:
    return Transcript(Session(repo), tmp_path / f"{SESSION}.jsonl", SESSION)


def candidate_lines(out: str) -> list[str]:
    return [x for x in json.loads(out)["reason"].splitlines() if x.startswith("- c")]


def test_a_commit_message_a_change_of_approach_and_a_finding_are_asked_about(
    transcript: Transcript,
) -> None:
    transcript.prompt("Make the install faster and keep the parser's memory bounded.")
    transcript.bash(
        "Let me look at how the workspace is set up.", "cat package.json", '{"name": "logs"}'
    )
    transcript.bash(
        "The test command is configured in `package.json` under `scripts.test`, not in "
        "a Makefile. I'll check the lock file next.",
        "ls",
        "package.json\npnpm-lock.yaml\nsrc",
    )
    transcript.bash(
        "The `pnpm-lock.yaml` file might be stale here, let me see.", "git status --short", ""
    )
    transcript.bash("Committing the workspace change.", HEREDOC_COMMIT, "[main 1a2b3c4] Use pnpm")
    lines = candidate_lines(transcript.stop(FINAL))
    (commit,) = [x for x in lines if "Use pnpm workspaces" in x]
    assert "[decision -> decision]" in commit and "installs took minutes" in commit
    assert "Co-Authored-By" not in commit
    (approach,) = [x for x in lines if "streaming mode" in x]
    assert "[decision -> decision]" in approach
    (fact,) = [x for x in lines if "configured in `package.json`" in x]
    assert "[fact -> env]" in fact
    # A list of files edited, a plan and a guess are narration, not lessons.
    assert not [x for x in lines if "Updated `src/parser.ts`" in x or "Added tests" in x]
    assert not [x for x in lines if "might be stale" in x or "check the lock file" in x]
    assert transcript.stop("Done.") == ""  # never twice


def test_commit_messages_given_as_several_options(transcript: Transcript) -> None:
    transcript.prompt("Stop running CI on every push.")
    transcript.bash(
        "Committing.",
        'git add .github/workflows/test.yml && git commit --no-gpg-sign -m "Run the test '
        'workflow only on pull requests and manual dispatch" -m "Changed workflow triggers:" '
        '-m "- Removed the push trigger" -m "This reduces CI noise and Actions minutes."',
        "[main 5d6e7f8] Run the test workflow",
    )
    transcript.bash("Tidying up.", 'git commit --amend --no-edit && git commit -m "WIP"', "")
    (commit,) = [x for x in candidate_lines(transcript.stop("Pushed.")) if "commit" in x]
    assert "only on pull requests and manual dispatch" in commit
    assert "This reduces CI noise and Actions minutes." in commit


def test_a_message_of_several_lines_in_one_option_is_one_candidate(
    transcript: Transcript,
) -> None:
    """The transcript gives the command whole, capture as one line (its line ends gone, so the
    subject runs into the body): the commit is read from the transcript only."""
    transcript.prompt("Stop running CI on every push.")
    transcript.bash(
        "Committing.",
        'git commit -m "Run the test workflow only on pull requests\n\n'
        'This reduces CI noise and Actions minutes."',
        "[main 5d6e7f8] Run the test workflow",
    )
    commits = [x for x in candidate_lines(transcript.stop("Pushed.")) if "commit message" in x]
    assert len(commits) == 1, commits
    assert 'commit message: "Run the test workflow only on pull requests" | "This' in commits[0]


def test_a_heredoc_commit_is_read_from_the_buffer_when_the_transcript_cannot_be(
    transcript: Transcript,
) -> None:
    """A transcript the hook cannot read gives no commit whole: the one-line command capture
    recorded is read instead, as for an assistant without a transcript."""
    session, base = transcript.session, transcript.base
    transcript.path = transcript.path.with_name("never-written.jsonl")
    session.fire({**base("UserPromptSubmit"), "prompt": "Make the install faster."})
    session.fire({**base("Stop"), "stop_hook_active": False, "last_assistant_message": "On it."})
    session.fire({**base("PostToolUse"), "tool_name": "Bash",
                  "tool_input": {"command": HEREDOC_COMMIT},
                  "tool_response": {"stdout": "[main 1a2b3c4] Use pnpm", "stderr": "",
                                    "interrupted": False}})  # fmt: skip
    outputs = session.fire(
        {**base("Stop"), "stop_hook_active": False, "last_assistant_message": "Committed."}
    )
    lines = candidate_lines(next((o for o in outputs if o.strip()), '{"reason": ""}'))
    assert [x for x in lines if 'commit message: "Use pnpm workspaces' in x], lines


def test_compaction_keeps_the_commits_decision(
    transcript: Transcript,
) -> None:
    transcript.prompt("Make the install faster and keep the parser's memory bounded.")
    transcript.bash(
        "The test command is configured in `package.json` under `scripts.test`.", "ls", "src"
    )
    transcript.bash("Committing the workspace change.", HEREDOC_COMMIT, "[main 1a2b3c4] Use pnpm")
    transcript.bash("A routine commit.", 'git commit -am "Add comprehensive testing docs"', "")
    transcript.stop(FINAL)
    session = transcript.session
    assert session.mem("compact").returncode == 0
    memory = api.Memory.open(session.root)
    items = {i.title: i for i in memory.items()}
    # The heredoc's subject and body told apart from the raw record, the reason kept.
    commit = items["Use pnpm workspaces for the monorepo"]
    assert commit.kind == "decision" and "one workspace keeps a single lock file" in commit.body
    # A commit without a reason, a finding said mid-turn, a change of approach in the closing
    # summary (no precision shown yet: the checkpoint asks) and a list of files edited: none.
    assert len(items) == 1, sorted(items)
    before = sorted((i.id, i.title, i.updated) for i in memory.items())
    assert session.mem("compact").returncode == 0
    assert sorted((i.id, i.title, i.updated) for i in memory.items()) == before
    assert memory.lint() == []


def test_a_commit_recorded_by_the_model_keeps_its_evidence_link(transcript: Transcript) -> None:
    transcript.prompt("Make the install faster.")
    transcript.bash("Committing the workspace change.", HEREDOC_COMMIT, "[main 1a2b3c4] Use pnpm")
    (line,) = [x for x in candidate_lines(transcript.stop("Committed.")) if "Use pnpm" in x]
    candidate = line.split()[1]
    session = transcript.session
    added = session.mem(
        "add", "--candidate", candidate, "--kind", "decision",
        "--title", "Use pnpm workspaces: npm installed dependencies twice",
        "--body", "One workspace keeps a single lock file and installs once.",
    )  # fmt: skip
    assert added.returncode == 0, added.stderr
    (item,) = api.Memory.open(session.root).items()
    refs = [e.get("ref", "") for e in item.evidence]
    assert any(ref.startswith(f"raw/{SESSION}.jsonl#o") for ref in refs), item.evidence
