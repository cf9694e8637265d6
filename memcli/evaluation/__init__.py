"""`mem eval`: does memory help? Measured on the user's own repository.

- :mod:`memcli.evaluation.recall_eval`: recall@k of `mem search` against labelled queries, a
  retrieval regression test a team keeps beside its memory;
- :mod:`memcli.evaluation.sessions_eval`: from captured sessions and the receipts log, how
  much of what was injected the model then used, and how much context it took.
"""
