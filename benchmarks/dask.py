"""Training and scoring throughput: local, then a Dask cluster of 1 and 2 worker processes.

    python benchmarks/dask.py                 # 20news-bydate train (training) and test (scoring)
    python benchmarks/dask.py --repeat 3

Each figure is the median of --repeat runs of the command as a user runs it (a fresh process:
`nbtext train DATA -o M [--dask local:N]`, `nbtext predict M DATA [--dask local:N]`), so the
cluster's start-up is included, as it is for a user. Throughput is documents and MB of input
per second of wall time; the ratio is against local. On this 2-core machine two workers share
the cores with the scheduler and the client, so the figure per worker is a floor for sizing.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.protocols import corpus_root  # noqa: E402


def timed(command: list[str]) -> float:
    started = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True)
    return time.perf_counter() - started


def size_of(folder: Path) -> tuple[int, int]:
    files = [p for p in folder.rglob("*") if p.is_file()]
    return len(files), sum(p.stat().st_size for p in files)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    root = corpus_root("20news-bydate")
    nbtext = [sys.executable, "-m", "nbtext"]
    setups = {"local": [], "dask, 1 worker": ["--dask", "local:1"], "dask, 2 workers": ["--dask", "local:2"]}
    print("| job | where | median s | documents/s | MB/s | vs local |")
    print("|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as scratch:
        model = Path(scratch) / "model.joblib"
        subprocess.run([*nbtext, "train", str(root / "train"), "-o", str(model)], check=True, capture_output=True)
        jobs = {
            "train (20news train)": (root / "train", lambda extra: [*nbtext, "train", str(root / "train"), "-o",
                                                                   str(Path(scratch) / "m.joblib"), *extra]),
            "predict (20news test)": (root / "test", lambda extra: [*nbtext, "predict", str(model),
                                                                    str(root / "test"), *extra]),
        }
        for job, (data, command) in jobs.items():
            n_docs, n_bytes = size_of(data)
            local = None
            for where, extra in setups.items():
                seconds = statistics.median(timed(command(extra)) for _ in range(args.repeat))
                local = local or seconds
                print(f"| {job} | {where} | {seconds:.1f} | {n_docs / seconds:,.0f} | {n_bytes / seconds / 2**20:.2f} "
                      f"| {local / seconds:.2f}x |", flush=True)


if __name__ == "__main__":
    main()
