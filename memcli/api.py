"""The public Python API: everything the `mem` commands do, for scripts and for the CLI.

    from memcli.api import Memory
    memory = Memory.open()            # the repository around the current directory
    item = memory.add("pitfall", "Tests need Postgres on 5433", "...", tags=["db"])
    memory.items(kind="pitfall")

Nothing here prints or exits: failures raise :class:`memcli.errors.MemError`, and files that
could not be read are collected in ``Memory.warnings`` for the caller to show.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memcli import __version__, config, forgetting, ids, model, scope, timeutil
from memcli.errors import MemError
from memcli.forgetting import ForgetResult
from memcli.maintenance import Maintenance
from memcli.model import Item, Problem
from memcli.paths import StorePaths, require_repo, require_store
from memcli.reading import Reading
from memcli.store import ItemStore, summarize

if TYPE_CHECKING:
    from memcli.privacy.redactor import Redactor


@dataclass
class InitResult:
    root: Path
    created: list[Path]
    identity: str = ""  # scope.project in the committed config
    driver: str = ""  # the merge driver command registered in this clone's git config
    to_commit: list[str] = field(default_factory=list)  # paths to commit, repo-relative
    notes: list[str] = field(default_factory=list)


def init(start: Path | None = None) -> InitResult:
    """Create ``.memory/`` from the template; files that exist are never overwritten."""
    from memcli import template

    root = require_repo(start)
    paths = StorePaths(root)
    created = template.copy_missing(paths.memory)
    paths.local.mkdir(mode=0o700, exist_ok=True)
    try:
        paths.local.chmod(0o700)  # local state is the owner's alone, in older stores too
    except OSError:
        pass  # not ours to change: every file mem creates there is still 0600
    memory = Memory(root)
    memory.settings()  # fails early on a broken config.yaml, refreshes capture's copy
    memory.scope()  # caches the root commit for the hook path
    memory.adopt_identity()
    from memcli.review.merge_driver import DRIVER_COMMAND, driver_program, register_merge_driver

    if ".gitattributes" in register_merge_driver(root):
        created.append(root / ".gitattributes")
    return InitResult(
        root,
        created,
        identity=str(memory.settings()["scope"].get("project") or ""),
        driver=f"{driver_program()} {DRIVER_COMMAND}",
        to_commit=[".memory", ".gitattributes"],
        notes=memory.notes,
    )


class Memory(Reading, Maintenance):
    """One repository's memory store (reading: :mod:`memcli.reading`; compact, import, prune and
    diff: :mod:`memcli.maintenance`)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.paths = StorePaths(root)
        self.store = ItemStore(self.paths)
        self.warnings: list[Problem] = []
        self.notes: list[str] = []  # things the user should know, such as an adopted identity
        self._settings: dict[str, Any] | None = None
        self._scope: dict[str, str | None] | None = None
        self._redactor: Redactor | None = None

    @classmethod
    def open(cls, start: Path | None = None) -> Memory:
        return cls(require_store(start))

    @classmethod
    def open_repository(cls, start: Path | None = None) -> Memory:
        """The repository around ``start``, with or without a ``.memory/`` (for `mem diff`,
        which compares committed states)."""
        return cls(require_repo(start))

    @classmethod
    def open_user(cls) -> Memory:
        """The user-level store (:mod:`memcli.userstore`); a MemError when it does not exist."""
        from memcli import userstore

        if not userstore.exists():
            where = userstore.home() / ".memory"
            raise MemError(f"no user store at {where} (run `mem init --user` first)")
        return cls(userstore.home())

    def settings(self) -> dict[str, Any]:
        if self._settings is None:
            self._settings = config.load(self.paths)
        return self._settings

    def forget_settings(self) -> None:
        """Read config.yaml again at the next use (mem itself changed it)."""
        self._settings = None
        self._scope = None

    def adopt_identity(self) -> None:
        """Before a write: a store without a project identity gets one (see memcli.identity)."""
        from memcli import identity

        note = identity.adopt(self)
        if note:
            self.notes.append(note)

    def redactor(self) -> Redactor:
        """The masking step for this store (built-in rules and the configured ones)."""
        if self._redactor is None:
            from memcli.privacy.redactor import Redactor, use_store_cache

            use_store_cache(str(self.paths.local))
            self._redactor = Redactor.from_settings(self.settings())
        return self._redactor

    def mask(self, text: str) -> str:
        """Text as it may be written: secrets masked with the built-in and configured rules."""
        return self.redactor().mask(text)

    def scope(self) -> dict[str, str | None]:
        if self._scope is None:
            resolved = scope.resolve(self.root, self.paths.scope_cache)
            override = self.settings()["scope"].get("project")
            if override:
                resolved["project"] = str(override)
            self._scope = resolved
        return self._scope

    # reading

    def items(self, kind: str | None = None) -> list[Item]:
        """Every readable item (broken files go to ``warnings``), optionally of one kind."""
        if kind is not None and kind not in model.KINDS:
            raise MemError(f"{kind!r} is not one of {', '.join(model.KINDS)}", field="kind")
        items, problems = self.store.load_all()
        self.warnings.extend(problems)
        return [i for i in items if kind is None or i.kind == kind]

    def get(self, item_id: str) -> Item:
        return self.store.get(item_id)

    def evidence(self, item: Item) -> list[dict[str, Any]]:
        """Layer 3: each evidence entry with the raw observation it points to, if still kept."""
        from memcli.observed import buffer

        found: list[dict[str, Any]] = []
        for entry in item.evidence:
            raw: Any = None
            file_name, _, obs_id = entry.get("ref", "").partition("#")
            path = self.paths.local / file_name
            if obs_id and path.resolve().is_relative_to(self.paths.local.resolve()):
                records = buffer.raw_records(str(path), {obs_id})
                raw = records[0].get("payload") if records else None
            found.append({**entry, "raw": raw})
        return found

    def record_use(self, item_ids: Iterable[str]) -> None:
        """Count a use (kept under local/, never in committed files)."""
        from memcli.retrieval import usage

        usage.record_use(self.paths, list(item_ids))

    def lint(self) -> list[Problem]:
        """Every problem in the item files, and in config.yaml."""
        from memcli import layout

        return self.config_problems() + layout.problems(self.paths) + self.store.lint()

    def config_problems(self) -> list[Problem]:
        """What is wrong with config.yaml: a broken or mistyped setting, a named command."""
        try:
            config.load(self.paths)
        except MemError as exc:
            where, _, rest = exc.message.partition(": ")
            path, _, line = where.rpartition(":")
            field, _, message = rest.partition(": ")
            if line.isdigit():
                return [Problem(path, int(line), field, message or rest)]
            return [Problem(where, 1, "(config)", rest)]
        return config.untrusted_settings(self.paths)

    # writing

    def add(
        self,
        kind: str,
        title: str,
        body: str,
        *,
        tags: Iterable[str] = (),
        expires: str | None = None,
        anchors: Iterable[str] = (),
        importance: float = 0.5,
        confidence: str = "assumed",
        branch: bool = False,
    ) -> Item:
        """Create and write a new item; ``branch`` files it under the current branch only."""
        self.adopt_identity()
        stamp = timeutil.now()
        item_scope = {"project": self.scope()["project"] or ""}
        if branch and self.scope().get("branch"):
            item_scope["branch"] = str(self.scope()["branch"])
        item = Item(
            id=self._fresh_id(),
            kind=kind,
            title=self.mask(title.strip()),
            body=self.mask(_clean_body(body)),
            scope=item_scope,
            created=stamp,
            updated=stamp,
            tags=model.normalize_tags([self.mask(t) for t in tags]),
            importance=importance,
            confidence=confidence,
            expires=_expiry(expires) if expires else None,
            anchors=[self._anchor(a) for a in anchors],
            source={"compactor": "manual", "version": __version__},
        )
        self._check(item)
        self.store.save(item)
        return item

    def edit(self, item_id: str, **changes: Any) -> Item:
        """Change fields of an item (None leaves a field alone); re-validated, ``updated`` set."""
        item = self.get(item_id)
        self.adopt_identity()
        data = item.to_dict()
        for name, value in changes.items():
            if value is None:
                continue
            if name not in model.FIELD_ORDER or name in ("id", "created", "updated"):
                raise MemError(f"cannot edit field {name!r}")
            if name == "tags":
                value = model.normalize_tags([self.mask(t) for t in value])
            elif name == "expires":
                value = _expiry(value) if value else None
            elif name == "anchors":
                value = [self._anchor(a) for a in value]
            elif name == "body":
                value = self.mask(_clean_body(value))
            elif name == "title":
                value = self.mask(value.strip())
            data[name] = value if name in ("id", "source") else self.redactor().mask_obj(value)
        data["updated"] = timeutil.now()
        edited = self._from_data(data, self.store.display(self.store.path_of(item.id)))
        self.store.save(edited)
        return edited

    def edit_text(self, item_id: str, text: str) -> Item:
        """Replace an item with edited YAML text (what `mem edit` gets back from $EDITOR)."""
        from memcli import yamlio

        original = self.get(item_id)
        path = self.store.path_of(original.id)
        if path.read_text(encoding="utf-8") == text:
            return original  # nothing edited: nothing written, `updated` stays
        shown = self.store.display(path)
        doc, problem = yamlio.parse(text, shown)
        if problem is not None:
            raise MemError(str(problem))
        assert doc is not None
        data = doc.plain()
        problems = model.validate(data, shown, doc.line_of)
        if problems:
            raise MemError(str(problems[0]))
        if data["id"] != original.id:
            raise MemError(f"{shown}:{doc.line_of('id')}: id: cannot be changed")
        data["updated"] = timeutil.now()
        data = {k: v if k == "id" else self.redactor().mask_obj(v) for k, v in data.items()}
        item = Item.from_dict(data)
        from memcli import atomic

        atomic.write_text(path, yamlio.render(item.to_dict(), doc, model.FIELD_ORDER))
        return item

    def forget(self, item_id: str) -> ForgetResult:
        """Delete an item for real: its file, its raw evidence and every local trace of it."""
        item = self.get(item_id)
        return forgetting.forget(self, item)

    # reporting

    def stats(self) -> dict[str, Any]:
        from memcli import itemcache
        from memcli.observed import buffer

        snapshot = itemcache.load(self.paths)
        try:
            items = snapshot.items()
            self.warnings.extend(snapshot.problems())
        finally:
            snapshot.save()
        summary = summarize(items)
        summary["store_bytes"] = sum(s[1] for s in snapshot.stats.values() if s is not None)
        summary["files"] = len(snapshot.names)
        summary["broken_files"] = len({problem.path for problem in self.warnings})
        summary["sessions"] = (
            len(list(self.paths.sessions.glob("*.yaml"))) if self.paths.sessions.is_dir() else 0
        )
        summary["pending_observations"] = buffer.pending_counts(self.paths)
        summary["local_bytes"] = _tree_size(self.paths.local)
        from memcli.compact import headless

        summary["summarizer"] = headless.cost_totals(self.paths)
        return summary

    # helpers

    def _fresh_id(self) -> str:
        while True:
            candidate = ids.new_id()
            if not self.paths.item_file(candidate).exists():
                return candidate

    def _anchor(self, spec: str) -> dict[str, str]:
        """``path`` or ``path::symbol``, stored relative to the repository root."""
        path_text, _, symbol = spec.partition("::")
        path = Path(path_text)
        absolute = (path if path.is_absolute() else Path.cwd() / path).resolve()
        try:
            relative = absolute.relative_to(self.root.resolve())
        except ValueError:
            raise MemError(f"{path_text} is outside the repository", field="anchors") from None
        anchor = {"path": relative.as_posix()}
        if symbol:
            anchor["symbol"] = symbol
        return anchor

    def _check(self, item: Item) -> None:
        shown = self.store.display(self.store.path_of(item.id))
        problems = model.validate(item.to_dict(), shown, lambda _field: 1)
        if problems:
            raise _argument_error(problems[0])

    def _from_data(self, data: dict[str, Any], shown: str) -> Item:
        problems = model.validate(data, shown, lambda _field: 1)
        if problems:
            raise _argument_error(problems[0])
        return Item.from_dict(data)


def _expiry(text: str) -> str:
    try:
        return timeutil.parse_expiry(text)
    except ValueError:
        raise MemError(
            f"{text!r} is not an ISO date or time, nor a span such as 30d or 12w", field="expires"
        ) from None


def _argument_error(problem: Problem) -> MemError:
    return MemError(problem.message, field=problem.field)


def _clean_body(body: str) -> str:
    lines = [line.rstrip() for line in body.strip("\n").split("\n")]
    return "\n".join(lines).strip() + ("\n" if len(lines) > 1 else "")


def _tree_size(folder: Path) -> int:
    total = 0
    for base, _dirs, files in os.walk(folder):
        for name in files:
            try:
                total += os.path.getsize(os.path.join(base, name))
            except OSError:
                pass
    return total
