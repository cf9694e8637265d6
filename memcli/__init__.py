"""mem: persistent, git-native memory for AI coding assistants.

The package root stays cheap to import: hook commands (`mem capture`) import it on every tool
call. The public API lives in :mod:`memcli.api`.
"""

__version__ = "0.1.0"
