"""`make bench`: every benchmark, one after the other. Not part of `make test`."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main() -> int:
    failures = 0
    for script in (
        "capture_bench.py",
        "checkpoint_bench.py",
        "secret_rates.py",
        "retrieval_bench.py",
        "compact_bench.py",
        "scale_bench.py",
        "quality_bench.py",
        "store_bench.py",
    ):
        path = HERE / script
        if not path.exists():
            continue
        print(f"\n## {script}\n", flush=True)
        failures += subprocess.run([sys.executable, str(path)], check=False).returncode != 0
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
