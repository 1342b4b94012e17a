"""Start-up of a one-document `nbtext predict`, this nbtext beside another install of it.

    python benchmarks/startup.py --baseline OTHER/bin/nbtext [--runs 31]

Trains the support-tickets model with each nbtext (a model file is read by the nbtext that
wrote it, or a newer one), then times `echo "my invoice is wrong" | nbtext predict MODEL` with
each in turn, alternating, so that the machine's noise falls on both alike. Prints the median
and quartiles of each, and the ratio of the medians: this one's over the baseline's. The
baseline is any older install, say a virtual environment of the release before a change:

    git worktree add /tmp/before v0.1.0 && python -m venv /tmp/before/.venv
    /tmp/before/.venv/bin/pip install -e /tmp/before
    python benchmarks/startup.py --baseline /tmp/before/.venv/bin/nbtext
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
TRAIN = REPO / "corpora" / "support-tickets" / "train"
DOCUMENT = b"my invoice is wrong\n"


def timed(command: list[str]) -> float:
    started = time.perf_counter()
    subprocess.run(command, input=DOCUMENT, stdout=subprocess.DEVNULL, check=True)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline", required=True, help="another nbtext command to compare with")
    parser.add_argument("--runs", type=int, default=31, help="predicts timed with each (default 31)")
    args = parser.parse_args()
    ours = shutil.which("nbtext", path=str(Path(sys.executable).parent)) or "nbtext"
    commands = {"this nbtext": ours, "baseline": args.baseline}
    with tempfile.TemporaryDirectory() as folder:
        models = {}
        for name, command in commands.items():
            models[name] = str(Path(folder) / f"{name.replace(' ', '-')}.joblib")
            subprocess.run([command, "train", str(TRAIN), "-o", models[name]], check=True, stderr=subprocess.DEVNULL)
        times: dict[str, list[float]] = {name: [] for name in commands}
        for name, command in commands.items():  # a first run each, untimed: the files into the page cache
            timed([command, "predict", models[name]])
        for _ in range(args.runs):
            for name, command in commands.items():
                times[name].append(timed([command, "predict", models[name]]))
    print(f"one-document predict, {args.runs} runs each, alternating")
    for name, runs in times.items():
        low, median, high = statistics.quantiles(runs, n=4)
        print(f"  {name:12} median {median:.3f} s   (quartiles {low:.3f} to {high:.3f})   {commands[name]}")
    ratio = statistics.median(times["this nbtext"]) / statistics.median(times["baseline"])
    print(f"ratio of the medians, this over the baseline: {ratio:.2f}")


if __name__ == "__main__":
    main()
