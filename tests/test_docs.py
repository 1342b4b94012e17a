"""The documentation: the command reference is what the commands define, the site builds with
no broken link, README stays a first five minutes, and no page narrates a past run."""

from __future__ import annotations

import doctest
import importlib.util
import re
import subprocess
import sys

import click
import pytest

from nbtext.cli import cli

from .conftest import REPO

DOCS = REPO / "docs"
REFERENCE = DOCS / "reference" / "commands.md"


def _make_reference():
    spec = importlib.util.spec_from_file_location("make_reference", DOCS / "make_reference.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_command_reference_is_what_the_commands_define():
    """Regenerate it after changing a command: python docs/make_reference.py."""
    assert REFERENCE.read_text() == _make_reference().render(), "run python docs/make_reference.py"


def test_the_reference_names_every_command_and_every_option_with_its_default():
    reference = REFERENCE.read_text()
    root = click.Context(cli)
    for name in cli.list_commands(root):
        command = cli.get_command(root, name)
        section = reference.split(f"## `nbtext {name}`\n", 1)[1].split("\n## ", 1)[0]
        for param in command.params:
            if isinstance(param, click.Option) and not param.hidden:
                row = next((line for line in section.splitlines() if line.startswith(f"| `{param.opts[0]}`")), None)
                assert row is not None, f"{name} {param.opts[0]}"
                if isinstance(param.default, (int, float, str)) and not param.is_flag and param.show_default:
                    assert f"`{param.default}`" in row, f"{name} {param.opts[0]}: default"


def test_a_new_option_without_a_regenerated_reference_fails(monkeypatch):
    """The staleness check can fail: an option added to a command makes the page differ."""
    command = cli.get_command(click.Context(cli), "info")
    monkeypatch.setattr(command, "params", [*command.params, click.Option(["--brand-new"], help="New.")])
    page = _make_reference().render()
    assert "`--brand-new`" in page and page != REFERENCE.read_text()


def test_the_site_builds_strictly(tmp_path):
    """mkdocs build --strict: a broken link, a missing anchor or a page left out of the build
    fails it."""
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(tmp_path / "site")],
                          cwd=REPO, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert (tmp_path / "site" / "reference" / "commands" / "index.html").exists()


def test_readme_is_a_first_five_minutes_and_its_links_resolve():
    readme = (REPO / "README.md").read_text()
    assert len(readme.splitlines()) < 200
    links = re.findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", readme)
    assert links and [link for link in links if not (REPO / link).exists()] == []


#: Words that tell a past run's story, which belongs in the commit message and CHANGELOG.md.
NARRATION = re.compile(r"\b(used to|at first|earlier (?:run|session|the same day)|the run before|an earlier|"
                       r"was (?:measured|run) again|last session|this session|before the change|since (?:then|the))\b",
                       re.IGNORECASE)


@pytest.mark.parametrize("page", [REPO / "README.md", *sorted(DOCS.rglob("*.md"))], ids=lambda page: page.name)
def test_no_page_narrates_a_past_run(page):
    told = [line for line in page.read_text().splitlines() if NARRATION.search(line)]
    assert told == []


@pytest.mark.parametrize("page", [page.relative_to(DOCS).as_posix() for page in sorted(DOCS.rglob("*.md"))
                                  if ">>> " in page.read_text()])
def test_the_python_sessions_in_the_docs_give_what_they_show(page):
    """Every ``>>>`` example on a page, run as doctest runs a docstring's."""
    failed, tried = doctest.testfile(str(DOCS / page), module_relative=False, optionflags=doctest.ELLIPSIS)
    assert tried and not failed
