"""Memory under review: semantic diffs, item history, pruning, the secret gate, merging.

- :mod:`memcli.review.diff`: `mem diff`, what a change does to memory, item by item;
- :mod:`memcli.review.history`: `mem log ID`, one item across commits;
- :mod:`memcli.review.prune`: `mem prune`, the checks CI runs and the fixes it proposes;
- :mod:`memcli.review.merge_driver`: `mem merge-driver`, the git merge driver for item files.

git is reached through :mod:`memcli.review.gitrepo` only, which runs it through
:mod:`memcli.gitlayer`.
"""
