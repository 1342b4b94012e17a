"""Benchmarks of nbtext next to the tools it replaces; each script's docstring says what it measures."""

from __future__ import annotations


def write_bytecode_as_installed() -> None:
    """Write nbtext's bytecode before anything is timed, as installing a package writes it (pip
    did for scikit-learn's). An editable install under PYTHONDONTWRITEBYTECODE has none, so every
    timed process would compile nbtext's source again: 30 ms of a cold start on this machine."""
    import compileall
    from pathlib import Path

    import nbtext

    compileall.compile_dir(Path(nbtext.__file__).parent, quiet=1)
