"""The house and its rules (docs/architecture.md): layers kept by lint-imports, modules of one
job and a readable size, commands that parse, make library calls and render, and a library that
makes, from Python, the very model file the command line makes."""

from __future__ import annotations

import ast
import dataclasses
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import nbtext
from nbtext.errors import DataError
from nbtext.inputs import training_corpus
from nbtext.readers import LabelledCorpus
from nbtext.spam_training import FILTER_TOKENS, train_filter
from nbtext.training import DEFAULT_ANALYZER, train, train_calibrated, train_held_out

from .conftest import REPO, TICKETS, corpus_path, run

PACKAGE = REPO / "nbtext"
#: Past this a module holds more than one job (the redesign's measure; the largest is ~650).
MOST_LINES = 800


def test_lint_imports_keeps_every_contract():
    """The layers, the library's freedom from click, rich and the CLI, the readers at the
    bottom, and no circle of imports: pyproject.toml's contracts, as CI runs them."""
    lint = shutil.which("lint-imports", path=os.path.dirname(sys.executable))
    assert lint is not None, "lint-imports is in the test extra"
    done = subprocess.run([lint], cwd=REPO, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(REPO)})
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Contracts: 4 kept, 0 broken." in done.stdout


def test_no_module_holds_more_than_one_job_by_its_size():
    sizes = {path.relative_to(REPO).as_posix(): len(path.read_text().splitlines()) for path in PACKAGE.rglob("*.py")}
    assert {path: lines for path, lines in sizes.items() if lines > MOST_LINES} == {}


def _imported(path: Path) -> set[str]:
    """Every module a file imports, at its top or in a function, as written (``..model``)."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            names.add("." * node.level + (node.module or ""))
    return names


def test_commands_compute_nothing_themselves():
    """A command parses options, calls the library, and renders: no command module reaches for
    numpy, the Naive Bayes core, the counts or the metrics, which is where the work is done."""
    work = {"numpy", "scipy", "sklearn", "..naive_bayes", "..counting", "..metrics", "..folds", "..matrices"}
    reached = {path.name: sorted(_imported(path) & work) for path in (PACKAGE / "cli").glob("*.py")}
    assert {name: found for name, found in reached.items() if found} == {}


def test_readers_init_only_names_what_its_modules_define():
    tree = ast.parse((PACKAGE / "readers" / "__init__.py").read_text())
    kinds = {type(node).__name__ for node in tree.body if not isinstance(node, ast.Expr)}
    assert kinds <= {"ImportFrom", "Assign"}, kinds  # imports, and __all__


def test_no_private_name_crosses_a_module_boundary():
    """``from .x import _name`` is a helper that belongs to x's job leaking into another's."""
    crossing = []
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and (node.level or (node.module or "").startswith("nbtext")):
                crossing += [f"{path.name}: {alias.name}" for alias in node.names
                             if alias.name.startswith("_") and alias.name not in ("__version__",)
                             and node.module not in ("", None)]
    assert crossing == []


def test_a_model_trained_from_python_is_the_model_the_command_line_writes(tmp_path):
    """The model file is the same byte for byte: its counts, settings, the texts it was trained
    on, and what it records of its data, whichever way it was trained."""
    data = str(TICKETS / "train")
    run(["train", data, "-o", tmp_path / "cli.joblib"])
    train(LabelledCorpus([data])).save(tmp_path / "api.joblib")
    assert (tmp_path / "cli.joblib").read_bytes() == (tmp_path / "api.joblib").read_bytes()

    run(["train", data, "-o", tmp_path / "cli-held.joblib", "--test-split", "0.3", "--seed", "2"])
    model, _ = train_held_out(LabelledCorpus([data]), fraction=0.3, seed=2)
    model.save(tmp_path / "api-held.joblib")
    assert (tmp_path / "cli-held.joblib").read_bytes() == (tmp_path / "api-held.joblib").read_bytes()

    run(["train", data, "-o", tmp_path / "cli-calibrated.joblib", "--calibrate", "--variant", "multinomial"])
    train_calibrated(LabelledCorpus([data]), analyzer=DEFAULT_ANALYZER, tf="log", doc_norm=None,
                     settings={"variant": "multinomial"}).save(tmp_path / "api-calibrated.joblib")
    assert (tmp_path / "cli-calibrated.joblib").read_bytes() == (tmp_path / "api-calibrated.joblib").read_bytes()


@pytest.mark.corpus
def test_a_spam_filter_trained_from_python_is_the_filter_the_command_line_writes(tmp_path):
    source = corpus_path("spamassassin-2003")
    for label in ("ham", "spam"):
        (tmp_path / "mail" / label).mkdir(parents=True)
        for path in sorted((source / label).iterdir())[:150]:
            os.symlink(path, tmp_path / "mail" / label / path.name)
    run(["train", "--input-format", "email", tmp_path / "mail", "-o", tmp_path / "cli.joblib"])
    corpus, analyzer = training_corpus([str(tmp_path / "mail")], dataclasses.replace(DEFAULT_ANALYZER,
                                                                                   tokens=FILTER_TOKENS),
                                       input_format="email")
    train_filter(corpus.read(), analyzer=analyzer).save(tmp_path / "api.joblib")
    assert (tmp_path / "cli.joblib").read_bytes() == (tmp_path / "api.joblib").read_bytes()


def test_the_library_names_its_parameters_and_the_command_line_its_options(tmp_path):
    """The same mistake, said to each in its own words."""
    data = str(TICKETS / "train")
    with pytest.raises(DataError) as raised:
        nbtext.train(LabelledCorpus([data]), settings={"min_df": 10_000})
    assert "lower min_df or raise max_df" in str(raised.value)
    said = run(["train", data, "-o", tmp_path / "m", "--min-df", "10000"], expect=1).stderr
    assert "lower --min-df or raise --max-df" in said and "min_df" not in said
