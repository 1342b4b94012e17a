"""The transcripts of README and of the docs on the shipped corpus: each command, run by bash
as a user would paste it, prints what the page shows."""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess

import click
import pytest

from nbtext.cli import cli

from .conftest import REPO, nbtext_command

#: Commands whose output README shows as a terminal renders it, or with a path of the machine
#: they ran on: tune's leaderboard, the top words, info. Their tests are the commands' own.
AS_ON_A_TERMINAL = ("nbtext tune ", "nbtext inspect-top-words ", "nbtext info ")


#: The pages whose transcripts are run: README and every page of the docs.
PAGES = [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]


def transcripts() -> list[list[tuple[str, str]]]:
    """The pages' blocks of ``$ COMMAND`` lines, each as (command, output) pairs: the commands
    that read only the shipped corpus, tickets.joblib and files the block's commands write."""
    blocks = [block for page in PAGES
              for block in re.findall(r"^```\n(\$ .*?)^```", page.read_text(), re.DOTALL | re.MULTILINE)]
    found = []
    for block in blocks:
        have = {"tickets.joblib", "-"}
        steps = []
        for step in re.split(r"^\$ ", block, flags=re.MULTILINE)[1:]:
            command, shown = step.split("\n", 1)
            data, written = _files_of(command)
            on_a_terminal = command.startswith(AS_ON_A_TERMINAL) and "|" not in command
            if not on_a_terminal and all(name in have or name.startswith("corpora/support-tickets/") for name in data):
                steps.append((command, shown))
                have |= written
        if steps:
            found.append(steps)
    return found


def _files_of(command: str) -> tuple[list[str], set[str]]:
    """The files the nbtext commands of a shell line read (their arguments) and write (-o,
    --errors, a redirection)."""
    read, written = [], set()
    for segment in command.split("|"):
        words = shlex.split(segment, comments=True)
        if words[:1] == ["cat"]:
            read += words[1:]
        if words[:1] != ["nbtext"]:
            continue
        options = {opt: param for param in cli.get_command(click.Context(cli), words[1]).params if isinstance(param, click.Option)
                   for opt in param.opts}
        rest = iter(words[2:])
        for word in rest:
            if word in (">", "2>"):
                written.add(next(rest))
            elif word.startswith(("2>", ">")):
                written.add(re.sub(r"^2?>", "", word))
            elif word in options and not options[word].is_flag:
                value = next(rest)
                if word in ("-o", "--output", "--errors"):
                    written.add(value)
            elif not word.startswith("-"):
                read.append(word)
    return read, written


@pytest.mark.parametrize("block", transcripts(), ids=lambda block: block[0][0][:60])
def test_transcript_is_what_the_command_prints(block, tmp_path):
    """Each block runs afresh, beside a tickets.joblib trained as the tour's first example
    trains it (a block that trains or updates one uses its own). Lines are compared as a
    terminal shows them: stdout's and stderr's, each in its order, interleaved as README has
    them. The eval example once lacked the calibration table eval prints under it."""
    if any(re.search(r"\| *jq ", command) for command, _ in block) and shutil.which("jq") is None:
        pytest.skip("needs jq, as the example does")
    bin_folder = nbtext_command(tmp_path / "bin").parent
    (tmp_path / "corpora").symlink_to(REPO / "corpora")
    env = {"PATH": f"{bin_folder}:/usr/bin:/bin", "HOME": str(tmp_path), "LANG": "C.UTF-8"}
    first_training = "nbtext train corpora/support-tickets/train -o tickets.joblib"
    if block[0][0] != first_training:
        subprocess.run(["bash", "-c", first_training], cwd=tmp_path, env=env, check=True, capture_output=True)
    for command, shown in block:
        done = subprocess.run(["bash", "-c", command], cwd=tmp_path, env=env, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        same = _interleaved(shown.splitlines(), done.stdout.splitlines(), done.stderr.splitlines())
        assert same, f"$ {command}\n--- the page\n{shown}--- stdout\n{done.stdout}--- stderr\n{done.stderr}"


def _interleaved(shown: list[str], out: list[str], err: list[str]) -> bool:
    """Whether ``shown`` is ``out`` and ``err`` interleaved, each kept in its order."""
    shown, out, err = ([_to_12_digits(line) for line in lines] for lines in (shown, out, err))
    can = {(0, 0)}  # lines of out and err used so far, by the lines of shown matched
    for line in shown:
        can = {(i + 1, j) for i, j in can if i < len(out) and out[i] == line} | \
              {(i, j + 1) for i, j in can if j < len(err) and err[j] == line}
    return (len(out), len(err)) in can


def _to_12_digits(line: str) -> str:
    """``line`` with each number printed whole (JSON's floats) cut to 12 significant digits:
    numpy 1.x's exp and log, which Python 3.10's oldest dependencies bring, differ from 2.x's
    in the last one or two of 17. A time taken (``trained ... in 0.0s ->``) is any time: on
    a busy machine, CI's, training the tickets took 0.1s."""
    line = re.sub(r"\d+\.\d{10,}", lambda number: f"{float(number.group()):.12g}", line)
    return re.sub(r"^((?:trained|merged|updated) .* in )\d+(?:\.\d+)?s( -> )", r"\1Ns\2", line)
