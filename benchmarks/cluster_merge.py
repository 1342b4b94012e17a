"""Where the shards' counts are added up: on the workers in a tree, against on the client.

    python benchmarks/cluster_merge.py                    # 20news-bydate train, 1/2/4 workers
    python benchmarks/cluster_merge.py --repeat 3 --parts 8,32,128,512

A scheduler and N worker processes are started on loopback as separate processes (`dask
scheduler`, `dask worker`), so this process is the client alone. For each number of parts
(shards of the 20news training folder), the same corpus is trained two ways:

- tree: nbtext's way (``cluster.count_on_cluster``): the workers count the parts and add their
  counts up in a tree; the client receives one result;
- client: each part's counts are sent to the client, which adds them up one after another (how
  nbtext merged before).

Printed per row: the client's CPU seconds (all its threads), the bytes of results the client
received (the pickled size of what it was sent), and wall seconds; medians of --repeat runs.
On this 2-core machine the workers share two cores, so wall time cannot show the scaling; the
client's figures can. Then the cost of one merge of two parts' counts, to model larger clusters.
"""

from __future__ import annotations

import argparse
import os
import pickle
import signal
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

# The repository, not benchmarks/, whose dask.py would stand in for the dask package.
sys.path[0] = str(Path(__file__).resolve().parent.parent)

from benchmarks.protocols import corpus_root  # noqa: E402
from nbtext.cluster import count_on_cluster, count_part, merged, training_parts  # noqa: E402
from nbtext.readers import LabelledCorpus  # noqa: E402
from nbtext.training import DEFAULT_ANALYZER, DEFAULT_DOC_NORM, DEFAULT_TF  # noqa: E402


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start_cluster(workers: int) -> tuple[str, list[subprocess.Popen]]:
    dask = os.path.join(os.path.dirname(sys.executable), "dask")
    address = f"tcp://127.0.0.1:{free_port()}"
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL, "start_new_session": True}
    processes = [subprocess.Popen([dask, "scheduler", "--host", "127.0.0.1", "--port", address.rsplit(":", 1)[1],
                                   "--dashboard-address", ":0"], **quiet)]
    processes.append(subprocess.Popen([dask, "worker", address, "--nthreads", "1", "--nworkers", str(workers),
                                       "--no-dashboard", "--host", "127.0.0.1"], **quiet))
    return address, processes


def stop(processes: list[subprocess.Popen]) -> None:
    for process in reversed(processes):
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=60)


def on_the_client(client, parts):
    """Each part's counts sent to the client and added up there, as they arrive."""
    from distributed import as_completed

    analyzer = DEFAULT_ANALYZER.to_dict()
    futures = client.map(count_part, parts, analyzer=analyzer, tf=DEFAULT_TF, doc_norm=DEFAULT_DOC_NORM,
                         names=((), ()), pure=False)
    total, received = None, 0
    for future in as_completed(futures):
        part = future.result()
        received += len(pickle.dumps(part, protocol=5))
        total = part if total is None else merged([total, part])
        future.release()
    return total, received


def in_a_tree(client, parts):
    total = count_on_cluster(client, parts, analyzer=DEFAULT_ANALYZER, tf=DEFAULT_TF, doc_norm=DEFAULT_DOC_NORM)
    return total, len(pickle.dumps(total, protocol=5))


def measured(run, client, parts) -> tuple[float, int, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    total, received = run(client, parts)
    return time.process_time() - cpu, received, time.perf_counter() - wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--parts", default="8,32,128,512")
    parser.add_argument("--workers", default="1,2,4")
    args = parser.parse_args()
    from distributed import Client

    data = corpus_root("20news-bydate") / "train"
    corpus = LabelledCorpus([str(data)])
    total_bytes = corpus.total_bytes or 0
    files = sum(len(listed) for _, _, listed in corpus.plan)
    print(f"20news-bydate train: {files:,} files, {total_bytes / 2**20:.1f} MB")
    print("| workers | parts | merged on | client CPU s | bytes received | wall s |")
    print("|---|---|---|---|---|---|")
    for workers in map(int, args.workers.split(",")):
        address, processes = start_cluster(workers)
        try:
            with Client(address, timeout="60s") as client:
                client.wait_for_workers(workers, timeout=120)
                for count in map(int, args.parts.split(",")):
                    parts = training_parts(client, LabelledCorpus([str(data)]), (),
                                           shard_bytes=max(1, total_bytes // count))
                    for name, run in (("workers (tree)", in_a_tree), ("client", on_the_client)):
                        runs = [measured(run, client, parts) for _ in range(args.repeat)]
                        cpu, received, wall = (statistics.median(r[i] for r in runs) for i in range(3))
                        print(f"| {workers} | {len(parts)} | {name} | {cpu:.2f} | {received / 2**20:.1f} MB "
                              f"| {wall:.1f} |", flush=True)
        finally:
            stop(processes)
    # The merges' costs, to model larger clusters: the client adding one part to its total (of
    # 32 parts), and the root of the tree adding up eight eighths of the corpus.
    seconds = []
    for count, how in ((32, "one part added to the client's total"), (8, "the tree's root, 8 eighths added up")):
        parts = training_parts(None, LabelledCorpus([str(data)]), (), shard_bytes=max(1, total_bytes // count))
        counted = [count_part(part, DEFAULT_ANALYZER.to_dict(), DEFAULT_TF, DEFAULT_DOC_NORM, ((), ()))
                   for part in parts]
        if count == 8:
            started = time.perf_counter()
            merged(counted)
            seconds = [time.perf_counter() - started]
        else:
            running, seconds = counted[0], []
            for part in counted[1:]:
                started = time.perf_counter()
                running = merged([running, part])
                seconds.append(time.perf_counter() - started)
        print(f"{how}: median {statistics.median(seconds):.2f} s, last {seconds[-1]:.2f} s")

if __name__ == "__main__":
    main()
