"""Privacy: the one masking step every byte `mem` writes under ``.memory/`` passes.

- :mod:`memcli.privacy.redactor`: the `Redactor`, built once from the redaction settings;
- :mod:`memcli.privacy.masking`, :mod:`~memcli.privacy.secret_rules`,
  :mod:`~memcli.privacy.secret_handlers`, :mod:`~memcli.privacy.secret_values`: the built-in
  rules, each named;
- :mod:`memcli.privacy.user_patterns`: ``redaction.extra_patterns``, checked and time-bounded;
- :mod:`memcli.privacy.session_secrets`: secrets a session has shown, kept as keyed hashes;
- :mod:`memcli.privacy.denylist`: paths captured by reference only;
- :mod:`memcli.privacy.owner_only`: files under ``.memory/local/`` are 0600, folders 0700;
- :mod:`memcli.privacy.secret_gate`: `mem prune --check`'s scan and mask of committed files;
- :mod:`memcli.privacy.prescreen`: whether the built-in rules can find anything in a text,
  without loading the masker (the Stop checkpoint asks before masking a sentence).

Everything but the secret gate runs on the hook path, so it imports nothing heavy.
"""
