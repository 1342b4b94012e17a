"""The package's type hints hold: mypy over nbtext/, as pyproject.toml configures it."""

from __future__ import annotations

import os
import subprocess
import sys

from .conftest import REPO, library_guide_example


def test_mypy_finds_no_type_errors(tmp_path):
    done = subprocess.run([sys.executable, "-m", "mypy", "--cache-dir", str(tmp_path)], cwd=REPO,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith("Success: no issues found")


def _mypy_as_a_user(folder, *args: str) -> subprocess.CompletedProcess:
    """mypy run in ``folder`` on a user's script, with the package found as an installed one
    is: checked against, its own errors silenced."""
    return subprocess.run([sys.executable, "-m", "mypy", "--cache-dir", str(folder / "cache"), "--follow-imports",
                           "silent", *args], cwd=folder, capture_output=True, text=True,
                          env={**os.environ, "MYPYPATH": str(REPO)})


def test_a_users_type_checker_sees_the_librarys_types(tmp_path):
    """The API is imported lazily, so to a type checker every name of it was Any, and nothing
    a user passed to nbtext was ever checked; nor did the package say it is typed (py.typed).
    Here mypy checks a user's script against the package as it checks an installed one, with
    errors inside the package silenced."""
    (tmp_path / "user.py").write_text(
        "import nbtext\n"
        "model = nbtext.train([nbtext.Document('free cash', 'spam', '1')])\n"
        "first: int = model.classes[0]\n"
        "model.predict(42)\n"
        "reveal_type(model)\n")
    done = _mypy_as_a_user(tmp_path, "--no-error-summary", "user.py")
    assert done.stdout.splitlines() == [
        'user.py:3: error: Incompatible types in assignment (expression has type "str", variable has type "int")  '
        "[assignment]",
        'user.py:4: error: Argument 1 to "predict" of "Model" has incompatible type "int"; expected "Iterable[str]"  '
        "[arg-type]",
        'user.py:5: note: Revealed type is "nbtext.model.Model"',
    ], done.stdout + done.stderr
    assert (REPO / "nbtext" / "py.typed").is_file()


def test_every_lazy_name_is_imported_for_type_checkers():
    """The names of the API are listed twice in nbtext/__init__.py: where each is imported
    from when first used, and the imports a type checker reads instead. A name added to one
    and not the other would be Any to users, or import from the wrong module."""
    import ast

    import nbtext

    tree = ast.parse((REPO / "nbtext" / "__init__.py").read_text())
    block = next(node for node in tree.body if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING")
    aliases = [(alias, node.module) for node in block.body if isinstance(node, ast.ImportFrom) for alias in node.names]
    assert {alias.name: module for alias, module in aliases} == nbtext._API
    assert [alias.name for alias, _ in aliases if alias.asname != alias.name] == []  # "X as X": exported under --strict


def test_readmes_library_example_passes_a_strict_type_check(tmp_path):
    """With the API's types visible, README's example failed mypy: a Document's label may be
    None, which evaluate did not take, and under --strict none of the lazy names counted as
    exported. A user's example must check clean as it stands."""
    (tmp_path / "example.py").write_text(library_guide_example())
    done = _mypy_as_a_user(tmp_path, "--strict", "example.py")
    assert done.stdout == "Success: no issues found in 1 source file\n", done.stdout + done.stderr
