"""The kinds of memory item: a module of its own so light commands can check one cheaply."""

KINDS = ("decision", "pitfall", "convention", "env", "task")
CONFIDENCE = ("assumed", "verified")
