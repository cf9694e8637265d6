"""Held-out check of masking: fresh random secrets in 30 formats, and benign look-alikes.

Usage: python benchmarks/secret_formats.py [ROUNDS]

Draws ROUNDS (default 20) sets of the secrets that `tests/privacy/test_privacy_boundary.py`
pushes through every channel (cloud and platform tokens, JWTs, private keys whole and cut
short, passwords in URLs, assignments, prose and command lines), masks each line and counts
the lines whose secret is gone, by format. Then masks commit ids, UUIDs and sha256 digests in
four contexts and counts those kept readable. Unlike `secret_rates.py`, nothing here comes
from a scanner's test data, so it measures the formats mem's own issue list names.
"""

from __future__ import annotations

import sys
import uuid
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from memcli.privacy.redactor import mask  # noqa: E402
from tests.privacy import test_privacy_boundary as samples  # noqa: E402


def main(rounds: int) -> None:
    total, missed = 0, Counter[str]()
    for seed in range(rounds):
        samples.RNG.seed(seed)
        for name, line, secret in samples.formats():
            total += 1
            if secret in mask(line):
                missed[name] += 1
    print(f"secrets masked: {total - sum(missed.values())}/{total}")
    for name, count in missed.most_common():
        print(f"  missed {count:3d} x {name}")
    kept = checked = 0
    for seed in range(rounds * 10):
        samples.RNG.seed(seed)
        hexes = "".join(samples.RNG.choice(samples.HEX) for _ in range(104))
        for value in (hexes[:40], str(uuid.UUID(hex=hexes[40:72])), f"sha256:{hexes[40:]}"):
            for text in (f"commit {value}", f"id={value}", f"digest: {value}", value):
                checked += 1
                kept += mask(text) == text
    print(f"look-alikes kept: {kept}/{checked}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 20)
