"""Measure `memcli.privacy.masking` against labelled public secret samples.

Usage: python benchmarks/secret_rates.py [PATH] [--emails] [--quiet]

PATH (default: $MEM_SECRETS_DIR, else ../shared/secrets) holds
- detect-secrets/*_test.py: the plugin tests of Yelp/detect-secrets. Their
  ``@pytest.mark.parametrize`` cases (a line and whether it should be flagged) are read with
  :mod:`ast`, never imported or run; module-level lists of ``(line, expected_secret)`` pairs
  (the keyword plugin's tables) count too, ``None`` meaning "not a secret";
- gitleaks/tps_fps_literals.jsonl: literal true and false positives of gitleaks' rules.

A sample counts as flagged when ``mask(text) != text``. E-mail masking is off unless
``--emails`` is given: it is personal-data masking, and several false-positive samples hold an
address on purpose. A line that one source labels both ways (detect-secrets' keyword tables
differ by file type) is left out and counted. Prints TP and FP rates per source and family,
then the misses.
"""

from __future__ import annotations

import ast
import itertools
import json
import os
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from memcli.privacy.redactor import mask  # noqa: E402

UNKNOWN = object()
TEXT_KEYS = ("line", "payload", "file_content")
LABEL_KEYS = ("should_flag", "should_be_caught", "expected_secret")


def evaluate(node: ast.expr, env: dict[str, object]) -> object:
    """A literal expression (strings, numbers, tuples, lists, ``+``, ``*``, ``str.format``,
    f-strings and names bound to such values); UNKNOWN for anything else."""
    match node:
        case ast.Constant(value=value):
            return value
        case ast.Name(id=name):
            return env.get(name, UNKNOWN)
        case ast.Tuple(elts=elts) | ast.List(elts=elts):
            items = [evaluate(e, env) for e in elts]
            return tuple(items) if isinstance(node, ast.Tuple) else items
        case ast.BinOp(left=left, op=op, right=right):
            a, b = evaluate(left, env), evaluate(right, env)
            try:
                if isinstance(op, ast.Add):
                    return a + b  # type: ignore[operator]
                if isinstance(op, ast.Mult):
                    return a * b  # type: ignore[operator]
            except TypeError:
                return UNKNOWN
        case ast.Call(func=ast.Attribute(value=base, attr="format"), args=args, keywords=kws):
            template = evaluate(base, env)
            values = [evaluate(a, env) for a in args]
            named = {k.arg: evaluate(k.value, env) for k in kws if k.arg}
            if isinstance(template, str) and UNKNOWN not in values + list(named.values()):
                try:
                    return template.format(*values, **named)
                except (IndexError, KeyError, ValueError):
                    return UNKNOWN
        case ast.JoinedStr(values=parts):
            out = []
            for part in parts:
                value = evaluate(part.value if isinstance(part, ast.FormattedValue) else part, env)
                if value is UNKNOWN:
                    return UNKNOWN
                out.append(str(value))
            return "".join(out)
    return UNKNOWN


def parametrize_rows(decorator: ast.expr, env: dict[str, object]) -> list[dict[str, object]]:
    if not (
        isinstance(decorator, ast.Call)
        and isinstance(decorator.func, ast.Attribute)
        and decorator.func.attr == "parametrize"
        and len(decorator.args) >= 2
    ):
        return []
    names = evaluate(decorator.args[0], env)
    values = evaluate(decorator.args[1], env)
    if not isinstance(names, str) or not isinstance(values, list | tuple):
        return [{"__unknown__": True}]
    keys = [n.strip() for n in names.split(",") if n.strip()]
    rows = []
    for value in values:
        row = value if len(keys) > 1 else (value,)
        if isinstance(row, tuple) and len(row) == len(keys):
            rows.append(dict(zip(keys, row, strict=True)))
    return rows


def case_of(row: dict[str, object]) -> tuple[str, bool] | None:
    text = next((row[k] for k in TEXT_KEYS if k in row), None)
    if text is None and isinstance(row.get("format"), str):
        try:
            text = str(row["format"]).format(**{k: v for k, v in row.items() if k != "format"})
        except (KeyError, IndexError, ValueError):
            return None
    if not isinstance(text, str):
        return None
    label = next((row[k] for k in LABEL_KEYS if k in row), UNKNOWN)
    if label is UNKNOWN:
        if set(row) - {"format"} - set(TEXT_KEYS) - {"non_secret", "secret", "plugin"}:
            return None  # some other expectation (a count, a verification result)
        label = True  # the test only asserts that the plugin flags it
    return text, bool(label)


def parametrized_cases(
    node: ast.AST, env: dict[str, object], outer: list[list[dict[str, object]]]
) -> tuple[list[tuple[str, bool]], bool]:
    """The cases of every parametrized test under `node` (a class passes its own rows down);
    True too if some test takes its rows from a helper this reader cannot evaluate."""
    found: list[tuple[str, bool]] = []
    via_helper = False
    for child in ast.iter_child_nodes(node):
        if not isinstance(child, ast.ClassDef | ast.FunctionDef):
            continue
        own = [rows for d in child.decorator_list if (rows := parametrize_rows(d, env))]
        if isinstance(child, ast.ClassDef):
            cases, helper = parametrized_cases(child, env, outer + own)
            found += cases
            via_helper |= helper
            continue
        groups = outer + own
        if not own:
            continue
        if any(rows == [{"__unknown__": True}] for rows in groups):
            via_helper = True
            continue
        for combo in itertools.product(*groups):
            merged: dict[str, object] = {}
            for part in combo:
                merged.update(part)
            case = case_of(merged)
            if case is not None:
                found.append(case)
    return found, via_helper


def detect_secrets_cases(folder: Path) -> dict[str, list[tuple[str, bool]]]:
    cases: dict[str, list[tuple[str, bool]]] = defaultdict(list)
    for path in sorted(folder.glob("*_test.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        env: dict[str, object] = {}
        for node in tree.body:
            if isinstance(node, ast.Assign) and len(node.targets) == 1:
                target = node.targets[0]
                if isinstance(target, ast.Name):
                    env[target.id] = evaluate(node.value, env)
        found, via_helper = parametrized_cases(tree, env, [])
        if via_helper:  # parametrized through a helper: read the tables it is given
            for value in env.values():
                if (
                    isinstance(value, list)
                    and value
                    and all(
                        isinstance(v, tuple) and len(v) == 2 and isinstance(v[0], str)
                        for v in value
                    )
                ):
                    found += [(line, expected is not None) for line, expected in value]
        cases[path.name.removesuffix("_test.py")] += found
    return cases


def gitleaks_cases(path: Path) -> dict[str, list[tuple[str, bool]]]:
    cases: dict[str, list[tuple[str, bool]]] = defaultdict(list)
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            cases[row["rule_file"].removesuffix(".go")].append((row["text"], row["label"] == "tp"))
    return cases


def dedupe(cases: dict[str, list[tuple[str, bool]]]) -> tuple[dict[str, list], int]:
    labels: dict[str, set[bool]] = defaultdict(set)
    for items in cases.values():
        for text, label in items:
            labels[text].add(label)
    conflicts = {t for t, ls in labels.items() if len(ls) > 1}
    out: dict[str, list] = {}
    for family, items in cases.items():
        seen: dict[str, bool] = {}
        for text, label in items:
            if text not in conflicts:
                seen.setdefault(text, label)
        if seen:
            out[family] = list(seen.items())
    return out, len(conflicts)


def rate(hit: int, total: int) -> str:
    return f"{hit}/{total} = {hit / total:6.1%}" if total else "-"


def report(source: str, cases: dict[str, list[tuple[str, bool]]], emails: bool, quiet: bool):
    cases, conflicts = dedupe(cases)
    totals = [0, 0, 0, 0]  # tp flagged, tp total, fp flagged, fp total
    misses: list[str] = []
    print(f"\n== {source} ({conflicts} lines labelled both ways left out)")
    print(f"{'family':<22} {'true positives masked':>24} {'false positives masked':>24}")
    for family in sorted(cases):
        row = [0, 0, 0, 0]
        for text, positive in cases[family]:
            flagged = mask(text, mask_emails=emails) != text
            k = 0 if positive else 2
            row[k] += flagged
            row[k + 1] += 1
            if flagged != positive:
                kind = "missed" if positive else "masked"
                misses.append(f"  {kind:6} {family:<18} {text[:90]!r}")
        totals = [a + b for a, b in zip(totals, row, strict=True)]
        print(f"{family:<22} {rate(row[0], row[1]):>24} {rate(row[2], row[3]):>24}")
    print(f"{'ALL':<22} {rate(totals[0], totals[1]):>24} {rate(totals[2], totals[3]):>24}")
    if misses and not quiet:
        print(f"-- {len(misses)} disagreements (missed true positive / masked false positive):")
        print("\n".join(misses))
    return totals


def main(argv: list[str]) -> int:
    flags = {a for a in argv if a.startswith("--")}
    args = [a for a in argv if not a.startswith("--")]
    beside = Path(__file__).resolve().parents[2] / "shared" / "secrets"  # ../shared/secrets
    default = os.environ.get("MEM_SECRETS_DIR") or str(beside)
    root = Path(args[0] if args else default)
    if not (root / "detect-secrets").is_dir() or not (root / "gitleaks").is_dir():
        print(f"secret_rates: no samples under {root} (give PATH or set MEM_SECRETS_DIR)")
        return 2
    emails, quiet = "--emails" in flags, "--quiet" in flags
    print(f"samples: {root}  (e-mail masking {'on' if emails else 'off'})")
    a = report("detect-secrets", detect_secrets_cases(root / "detect-secrets"), emails, quiet)
    b = report(
        "gitleaks", gitleaks_cases(root / "gitleaks" / "tps_fps_literals.jsonl"), emails, quiet
    )
    t = [x + y for x, y in zip(a, b, strict=True)]
    print(f"\n== both sources: TP {rate(t[0], t[1])}   FP {rate(t[2], t[3])}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
