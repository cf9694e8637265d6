"""One set of conventions for every `mem` command's help and options.

- ``-h`` and ``--help`` both show help (:data:`CONTEXT`, inherited by every subcommand).
- Help names values by what they are: ``--tag TAG``, ``--kind [decision|pitfall|...]``,
  ``mem show ID``, ``mem log [ID]``; never Typer's type labels (``<list[str]>``, ``<str>``)
  or its usage brackets (``{ID}``, ``[[ID]]``). :class:`MemCommand` does that for every
  command, so no command has to spell its metavars out.
- Output: on a terminal, rich tables; piped, tab-separated plain text (one record a line,
  :func:`memcli.cli.tsv.row`); JSON only with ``--json``. Errors: one line on stderr from
  :mod:`memcli.cli.failure`.
"""

from __future__ import annotations

from typing import Any

import typer
from typer.core import TyperArgument, TyperCommand, TyperOption

CONTEXT: dict[str, Any] = {"help_option_names": ["-h", "--help"]}


def _choices(param: Any) -> list[str] | None:
    descriptor = getattr(param, "type_descriptor", None)
    if descriptor is not None and getattr(descriptor, "is_choice", False):
        return [str(c) for c in descriptor.choices or ()]
    return None


def option_metavar(option: TyperOption) -> str:
    """``[a|b|c]`` for a choice, else the option's name in capitals (``--tag`` -> ``TAG``)."""
    choices = _choices(option)
    if choices:
        return "[" + "|".join(choices) + "]"
    longest = max(option.opts, key=len, default=option.name or "value")
    return longest.lstrip("-").replace("-", "_").upper()


def argument_name(argument: TyperArgument) -> str:
    name = argument.metavar or (argument.name or "arg").upper()
    return name if argument.nargs == 1 else f"{name}..."


class MemCommand(TyperCommand):
    """A Typer command whose help follows the conventions above."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for param in self.params:
            is_value = isinstance(param, TyperOption) and not param.is_flag and not param.count
            if is_value and param.metavar is None:
                assert isinstance(param, TyperOption)
                param.metavar = option_metavar(param)

    def collect_usage_pieces(self, ctx: Any) -> list[str]:
        pieces = [self.options_metavar] if self.options_metavar else []
        for param in self.get_params(ctx):
            if isinstance(param, TyperArgument):
                name = argument_name(param)
                pieces.append(name if param.required else f"[{name}]")
        return pieces

    def format_options(self, ctx: Any, formatter: Any) -> None:
        arguments: list[tuple[str, str]] = []
        options: list[tuple[str, str]] = []
        for param in self.get_params(ctx):
            if isinstance(param, TyperArgument):
                if not param.hidden:
                    arguments.append((argument_name(param), param.help or ""))
                continue
            record = param.get_help_record(ctx)
            if record is not None:
                options.append(record)
        if arguments:
            with formatter.section("Arguments"):
                formatter.write_dl(arguments)
        if options:
            with formatter.section("Options"):
                formatter.write_dl(options)


def command(app: typer.Typer, name: str, **settings: Any) -> Any:
    """``app.command(name)`` with :class:`MemCommand` and the shared context settings."""
    context = {**CONTEXT, **settings.pop("context_settings", {})}
    return app.command(name, cls=MemCommand, context_settings=context, **settings)
