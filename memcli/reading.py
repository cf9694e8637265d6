"""The reading half of :class:`memcli.api.Memory`: search, the Layer-1 index, recall, find.

Each answers as the command of the same name does (`mem search`, `mem index`, `mem recall`,
`mem show`), the opt-in user-level store included, so the CLI, the MCP server and scripts get
the same results from one place (tests/integration/test_one_way_in_parity.py holds them to it).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Self

from memcli import model
from memcli.errors import MemError
from memcli.model import Item

TYPE_CHECKING = False
if TYPE_CHECKING:
    from memcli.retrieval.layer1 import Layer1
    from memcli.retrieval.search import SearchOutcome, SearchResult


class Reading:
    """Mixed into :class:`memcli.api.Memory`, which provides what is declared here."""

    root: Path

    if TYPE_CHECKING:

        def get(self, item_id: str) -> Item: ...

        def settings(self) -> dict[str, Any]: ...

        @classmethod
        def open_user(cls) -> Self: ...

    def find(self, item_id: str) -> tuple[Self, Item]:
        """An item of this store, else of the user-level store when this repository opted in
        to it (an id from a search hit may be either); with the store that holds it."""
        try:
            return self, self.get(item_id)
        except MemError:
            from memcli import userstore

            if not userstore.enabled(self.settings()):
                raise
            user = type(self).open_user()
            return user, user.get(item_id)

    def search(
        self,
        query: str,
        limit: int = 10,
        *,
        kind: str | None = None,
        project: str | None = None,
        all_projects: bool = False,
        record: bool = True,
    ) -> SearchOutcome:
        """Layer 2, as `mem search` ranks it: this project's items (or ``project``'s, or every
        project's), with the user-level store's when this repository opted in to it."""
        from memcli import userstore
        from memcli.retrieval.loader import ASKED
        from memcli.retrieval.search import search_outcome

        if kind is not None and kind not in model.KINDS:
            raise MemError(f"{kind!r} is not one of {', '.join(model.KINDS)}", field="kind")
        if limit < 1:
            raise MemError("must be 1 or more", field="limit")
        found = search_outcome(
            self.root, query, limit, kind=kind, project=project, all_projects=all_projects,
            record=record, check=ASKED,
        )  # fmt: skip
        userstore.merge_hits(
            self.root, found, query, limit, kind=kind, project=project, record=record
        )
        return found

    def recall(
        self, prompt: str, budget: int | None = None, *, record: bool = True
    ) -> tuple[str, list[SearchResult]]:
        """What `mem recall` injects for a prompt: the few items close to the best match, as
        fenced text under ``budget`` tokens (default: budgets.recall_tokens), and those hits."""
        from memcli.retrieval import layer1

        return layer1.recall(self.root, prompt, _budget(budget), record=record)

    def index(
        self,
        budget: int | None = None,
        *,
        project: str | None = None,
        all_projects: bool = False,
        record: bool = True,
    ) -> Layer1:
        """Layer 1, as `mem index` prints it: the most useful items under a token budget."""
        from memcli.retrieval import layer1

        return layer1.layer1_index(
            self.root, _budget(budget), project=project, all_projects=all_projects, record=record
        )


def _budget(budget: int | None) -> int | None:
    if budget is not None and budget < 1:
        raise MemError("must be 1 or more", field="budget")
    return budget
