"""A long prompt that pastes an earlier session's log (`memcli/compact/pasted_context.py`):
its first lessons are kept, read as notes are; pasted instructions and short prompts are not."""

from __future__ import annotations

from compact_helpers import Writer, prompt, run_cmd

from memcli import api
from memcli.compact import compact_session

FILLER = [f"$ ls step{n}\nstep{n}.txt" for n in range(14)]  # a log's lines that teach nothing
LOG = "\n".join([
    "Continue from where the last session stopped. Its log:",
    *FILLER,
    "Let me check the exporter next.",
    "The exporter writes CSV instead of Parquet because the reporting box has no pyarrow wheel.",
    "No, we should never commit the signing key in keys/release.pem.",
    "This might be because the cache is cold.",
])  # fmt: skip


def test_a_pasted_log_gives_its_decisions_and_norms(
    memory: api.Memory, write_buffer: Writer
) -> None:
    name = write_buffer([prompt(LOG), run_cmd("make export", "wrote out.csv", True)])
    compact_session(memory, name)
    kinds = {i.title: i.kind for i in memory.items()}
    assert kinds == {
        "The exporter writes CSV instead of Parquet because the reporting box has no pyarrow "
        "wheel": "pitfall",
        "No, we should never commit the signing key in keys/release.pem": "convention",
    }, kinds


def test_pasted_instructions_and_short_prompts_are_not_read_so(
    memory: api.Memory, write_buffer: Writer
) -> None:
    instructions = "# CLAUDE.md\n" + LOG
    short = "We chose CSV instead of Parquet because the reporting box has no pyarrow wheel."
    name = write_buffer([prompt(instructions), prompt(short)])
    compact_session(memory, name)
    assert memory.items() == []


def test_only_the_first_few_lessons_of_a_long_log(memory: api.Memory, write_buffer: Writer) -> None:
    lessons = [
        "The exporter writes CSV instead of Parquet because the box has no pyarrow wheel.",
        "Sessions are kept in Redis rather than Postgres because logins must survive deploys.",
        "We chose nightly cron runs over a queue because the API quota resets at midnight.",
        "Thumbnails are cut with vips instead of Pillow because big TIFFs exhausted memory.",
        "The mailer retries through SES instead of SMTP since port 25 is blocked in the VPC.",
        "Config moved to TOML rather than INI because nested tables were needed for regions.",
        "Uploads go straight to S3 instead of the app server because large files timed out.",
        "The linker uses mold rather than ld because release builds took nine minutes.",
    ]
    name = write_buffer([prompt("\n".join([*FILLER, *FILLER, *lessons]))])
    compact_session(memory, name)
    assert len(memory.items()) == 6
