"""The `.memory-template` folder `mem init` copies, found in the wheel or the source tree."""

from __future__ import annotations

import shutil
from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


def template_dir() -> Path:
    """The shipped template: inside the installed package, else the source checkout's copy."""
    for candidate in (_PACKAGE / "_memory_template", _PACKAGE.parent / ".memory-template"):
        if (candidate / "config.yaml").is_file():
            return candidate
    raise FileNotFoundError("the .memory-template folder is missing from this installation")


def copy_missing(target: Path) -> list[Path]:
    """Copy every template file that ``target`` lacks; never overwrite. Returns what was made."""
    source = template_dir()
    made: list[Path] = []
    for path in sorted(source.rglob("*")):
        dest = target / path.relative_to(source)
        if path.is_dir():
            if not dest.exists():
                dest.mkdir(parents=True)
                made.append(dest)
        elif not dest.exists():
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, dest)
            made.append(dest)
    return made
