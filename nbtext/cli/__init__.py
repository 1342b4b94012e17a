"""The command layer: each command parses its options, calls the library, and hands the
result to render. Nothing else imports it. A library error names the parameters it is about;
here it names the options that set them (``flags``), and parameters that do not go together
(``errors.OptionsError``) are a usage error.

Exit codes (see nbtext.errors): 0 success, 1 data or model error (one line on stderr), 2 usage
error, 141 when the reader of our output goes away (``| head -1``); filter: 0 spam, 1 ham, 2
unsure, 3 any error.

Each command lives in the module of its group (train, merge and tune in ``train``; eval in
``evaluate``; predict and filter in ``classify``; learn; inspect-top-words and info in
``inspect``), imported only when it runs, so that ``nbtext predict`` loads none of the others.
The options several commands share are in ``options``, what their bodies share in ``common``,
the training options made into the library's objects in ``setup``, and the process's streams
and signals in ``process``.
"""

from __future__ import annotations

import importlib
import os
import sys
from typing import Any

import click

from .._version import __version__
from ..errors import NbtextError, OptionsError
from . import process
from .flags import flag_of

#: Each command, by name: the module of its group, and the function click made of it.
COMMANDS = {
    "train": "train:train", "merge": "train:merge", "tune": "train:tune", "eval": "evaluate:eval_",
    "predict": "classify:predict", "filter": "classify:filter_", "learn": "learn:learn",
    "inspect-top-words": "inspect:inspect_top_words", "info": "inspect:info", "export": "inspect:export",
}

class _Group(click.Group):
    """nbtext's commands, each imported when it is run (or listed); the library's errors made one
    clean line naming the options, with exit status 1."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name not in COMMANDS:
            return None
        module, attribute = COMMANDS[name].split(":")
        return getattr(importlib.import_module(f".{module}", __name__), attribute)

    def make_context(self, info_name: str | None, args: list[str], parent: click.Context | None = None,
                     **extra: Any) -> click.Context:
        try:  # the options are parsed here, and --help and --version answered: click exits 1 on EPIPE
            return super().make_context(info_name, args, parent, **extra)
        except BrokenPipeError:
            process.quiet_pipe()

    def invoke(self, ctx: click.Context) -> Any:
        try:
            result = super().invoke(ctx)
            sys.stdout.flush()  # a full disk under our output is found here, not at the interpreter's exit
            return result
        except OptionsError as error:
            raise click.UsageError(error.spoken(flag_of)) from None
        except NbtextError as error:
            raise click.ClickException(error.spoken(flag_of)) from None
        except BrokenPipeError:
            process.quiet_pipe()
        except OSError as error:
            lost = process.output_lost(error)
            if lost is None:
                raise
            raise click.ClickException(str(lost)) from None


def _print_version(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    """--version: the version, and whether the compiled parts were built (the speed depends on it)."""
    if not value or ctx.resilient_parsing:
        return
    from .. import matrices  # here: numpy, 60 ms that nbtext --help and a usage error do not need
    from ..vectorizing import scanner

    parts = {"word scanner": scanner.wordscan is not None, "scorer": matrices.sparsedot is not None}
    click.echo(f"nbtext, version {__version__}")
    click.echo("compiled " + ", ".join(f"{name}: {'yes' if built else 'no'}" for name, built in parts.items())
               + ("" if all(parts.values()) else " (installed without a C compiler: numpy does that work, "
                                                 "with the same results, more slowly)"))
    ctx.exit()


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--version", is_flag=True, expose_value=False, is_eager=True, callback=_print_version,
              help="Show the version, and whether the compiled parts were built, and exit.")
def cli() -> None:
    """Naive Bayes text classification for the shell.

    Train on a folder with one subfolder per class, evaluate, classify files or lines from
    a pipe, and see which words drive each class.

    \b
    Example:
      nbtext train corpora/support-tickets/train -o tickets.joblib
      nbtext eval tickets.joblib corpora/support-tickets/test
      echo "my invoice is wrong" | nbtext predict tickets.joblib
    """


def main() -> None:
    """Console-script entry point.

    numpy's OpenBLAS starts a thread per core, each with its own work space, as numpy is
    imported: 0.05 s of every ``nbtext predict`` here, and a thread that spins beside ours.
    nbtext multiplies no dense matrices (its products are its own sparse loops), so the command
    asks for one thread before anything imports numpy, unless the user chose a number. Its
    worker processes inherit the setting; the library, imported by others, leaves it alone.
    """
    if not any(name in os.environ for name in process.BLAS_THREAD_VARIABLES):
        os.environ["OPENBLAS_NUM_THREADS"] = "1"
    process.stand_in_for_closed_streams()
    process.names_as_their_bytes(sys.stdout)
    process.names_as_their_bytes(sys.stderr)
    process.stop_cleanly_on(("SIGTERM", "SIGHUP"))
    interrupted = process.note_interrupts()
    try:
        cli.main(prog_name="nbtext")
    except SystemExit:
        if interrupted:
            process.end_as_interrupted()
        raise
    except BrokenPipeError:  # an error's message, or the usage, into `2>&1 | head` gone before it
        process.quiet_pipe()
