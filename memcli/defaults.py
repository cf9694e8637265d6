"""The default settings, documented in the template's ``config.yaml``.

A module of its own with no imports: `mem capture` falls back to it on the hook path.
"""

DEFAULTS: dict[str, dict[str, object]] = {
    "scope": {"project": None, "aliases": [], "user_store": False},
    "budgets": {"index_tokens": 400, "recall_tokens": 150},
    "capture": {
        "head_lines": 20,
        "tail_lines": 30,
        "max_excerpt_chars": 4000,
        "traceback_frames": 3,
        "buffer_max_bytes": 2_000_000,
        "raw_max_bytes": 20_000_000,
        "max_input_bytes": 8_000_000,
        "noise_tools": ["TodoWrite", "TodoRead", "LS", "Glob"],
        "deny_globs": [
            ".env*",
            "*.pem",
            "*.key",
            "id_rsa*",
            "id_dsa*",
            "id_ed25519*",
            "id_ecdsa*",
            "*.p12",
            "*.pfx",
            ".npmrc",
            ".pypirc",
            ".netrc",
            "credentials*",
            "*.keystore",
            "*.jks",
            "secrets.*",
        ],
    },
    "redaction": {"extra_patterns": [], "mask_emails": True},
    "decay": {"half_life_days": 90},
    "compact": {"summarizer": None, "timeout_seconds": 120},
    "recall": {"enabled": False},
    "checkpoint": {"mode": None, "max_per_turn": 8, "max_per_session": 24},
    "prune": {"unused_days": 180, "archive": False},
}
