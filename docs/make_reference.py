"""Write docs/reference/commands.md from the click commands themselves: every command, its
usage, its help, and every option with its values and default. tests/test_docs.py fails when
the committed page differs from what this writes, so the reference cannot go stale.

    python docs/make_reference.py          # rewrite docs/reference/commands.md
"""

from __future__ import annotations

import inspect
import sys
from pathlib import Path

import click

from nbtext.cli import cli

PAGE = Path(__file__).resolve().parent / "reference" / "commands.md"


def _cell(text: str) -> str:
    """Text as one Markdown table cell: one line, its bars escaped."""
    return " ".join(text.split()).replace("|", "\\|")


def _values(option: click.Option, ctx: click.Context) -> str:
    """What an option takes: its choices, a range, a flag, or its metavar."""
    if option.is_flag:
        return "flag"
    if isinstance(option.type, click.Choice):
        return " \\| ".join(f"`{choice}`" for choice in option.type.choices)
    if option.metavar:
        return f"`{option.metavar}`"
    # by the type, not click's make_metavar, whose words differ between click's releases
    kinds = {click.IntRange: "INTEGER", click.FloatRange: "NUMBER", click.Path: "PATH"}
    kind = next((name for kind, name in kinds.items() if isinstance(option.type, kind)), option.type.name.upper())
    return f"`{kind}`"


def _default(option: click.Option, ctx: click.Context) -> str:
    default = option.get_default(ctx, call=False)
    if not isinstance(default, (str, int, float, bool, tuple)):  # none (click 8.3's UNSET sentinel too)
        default = None
    if option.is_flag and option.secondary_opts:
        return f"`{(option.opts if default else option.secondary_opts)[0]}`"
    if option.is_flag or default is None or default == ():
        return ""
    if not option.show_default:  # a default that depends on where the output goes, say: the help says
        return "see what it does"
    return f"`{default}`"


def _help(command: click.Command) -> str:
    """A command's help as Markdown: its paragraphs, and its ``\\b`` blocks as code."""
    blocks = []
    for paragraph in inspect.cleandoc(command.help or "").split("\n\n"):
        if paragraph.startswith("\b\n"):
            blocks.append("```\n" + paragraph[2:].rstrip() + "\n```")
        else:
            blocks.append(" ".join(paragraph.split()))
    return "\n\n".join(blocks)


def render() -> str:
    """The reference page, as this nbtext's commands define it."""
    # with the group's settings, as a shell's `nbtext` gets them: its subcommands take -h too
    root = click.Context(cli, info_name="nbtext", **cli.context_settings)
    lines = ["# Command reference", "",
             "Generated from the commands by `python docs/make_reference.py`; `nbtext COMMAND --help` prints the "
             "same help. Exit codes are in [classifying](../guides/classifying.md#in-scripts-exit-codes).", "",
             "## `nbtext`", "", "```", "nbtext [--version] [-h] COMMAND [ARGS]...", "```", "", _help(cli), "",
             "`--version` prints the version, and whether the compiled parts were built.", ""]
    for name in cli.list_commands(root):
        command = cli.get_command(root, name)
        assert command is not None
        ctx = click.Context(command, info_name=name, parent=root)
        lines += [f"## `nbtext {name}`", "", "```", " ".join(command.collect_usage_pieces(ctx)).join(
            [f"nbtext {name} ", ""]), "```", "", _help(command), "",
            "| option | takes | default | what it does |", "|---|---|---|---|"]
        for param in command.get_params(ctx):
            if not isinstance(param, click.Option) or param.hidden:
                continue
            opts = [*param.opts, *param.secondary_opts]
            if param.name == "help":  # click before 8.3 lists them from a set, in an order of chance
                opts = [name for name in ctx.help_option_names if name in opts]
            names = ", ".join(f"`{opt}`" for opt in opts)
            lines.append(f"| {names} | {_values(param, ctx)} | {_default(param, ctx)} | {_cell(param.help or '')} |")
        lines.append("")
    return "\n".join(lines)


if __name__ == "__main__":
    PAGE.parent.mkdir(parents=True, exist_ok=True)
    PAGE.write_text(render())
    sys.stderr.write(f"wrote {PAGE}\n")
