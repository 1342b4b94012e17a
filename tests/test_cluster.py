"""Training and scoring on a real Dask cluster on loopback: a scheduler and two worker processes
started with the `dask` command, as a user would start them on their machines."""

from __future__ import annotations

import csv
import json
import mailbox
import os
import signal
import socket
import subprocess
import sys
import time

import joblib
import numpy as np
import pytest

from nbtext.errors import DataError
from nbtext.readers import LabelledCorpus
from nbtext.training import DEFAULT_ANALYZER, DEFAULT_DOC_NORM, DEFAULT_TF

from .conftest import TICKETS, assert_same_counts, corpus_path, run

distributed = pytest.importorskip("distributed", reason="the cluster tests need nbtext[dask]")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Cluster:
    """`dask scheduler` and `dask worker` processes on 127.0.0.1."""

    def __init__(self, workers: int) -> None:
        self.port = _free_port()
        self.address = f"tcp://127.0.0.1:{self.port}"
        self.scheduler = self._start("scheduler", "--host", "127.0.0.1", "--port", str(self.port),
                                     "--dashboard-address", ":0")
        self.workers = [self._start("worker", self.address, "--nthreads", "1", "--nworkers", "1",
                                    "--no-dashboard", "--host", "127.0.0.1") for _ in range(workers)]
        with distributed.Client(self.address, timeout="30s") as client:
            client.wait_for_workers(workers, timeout=60)

    @staticmethod
    def _start(command: str, *args: str) -> subprocess.Popen:
        dask = os.path.join(os.path.dirname(sys.executable), "dask")  # the venv's own `dask` command
        return subprocess.Popen([dask, command, *args],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)

    def stop(self) -> None:
        for process in [*self.workers, self.scheduler]:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
        for process in [*self.workers, self.scheduler]:
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()


@pytest.fixture(scope="module")
def cluster():
    started = Cluster(workers=2)
    yield started
    started.stop()


def test_20news_trained_on_the_cluster_equals_local_training(cluster, tmp_path):
    data = corpus_path("20news-bydate") / "train"
    run(["train", data, "-o", tmp_path / "local.joblib"])
    result = run(["train", data, "-o", tmp_path / "cluster.joblib", "--dask", cluster.address])
    assert "read 11,314 documents" in result.stderr
    local_file, cluster_file = joblib.load(tmp_path / "local.joblib"), joblib.load(tmp_path / "cluster.joblib")
    assert local_file["kept"]["terms"].tobytes() == cluster_file["kept"]["terms"].tobytes()
    assert_same_counts(local_file["counts"], cluster_file["counts"])
    assert (tmp_path / "local.joblib").read_bytes() == (tmp_path / "cluster.joblib").read_bytes()
    test = corpus_path("20news-bydate") / "test"
    local = run(["predict", tmp_path / "local.joblib", test, "--proba", "--explain", "3"]).stdout.splitlines()
    remote = run(["predict", tmp_path / "cluster.joblib", test, "--proba", "--explain", "3",
                  "--dask", cluster.address]).stdout.splitlines()
    assert len(local) == 7532 and remote == local
    assert sum(len(line.split("\t")) == 3 + 1 + 2 * 3 for line in local) == 7532  # each with 3 words and weights


def test_one_shard_trained_on_the_cluster_is_the_local_file_byte_for_byte(cluster, tmp_path):
    """A corpus of one shard is counted by one worker, and its arrays, unpickled, each bring
    their own dtype; the file was other bytes than the local run's, the same model written with
    other references. (20news's many shards are added up on the client, into arrays of numpy's
    own dtypes: its file was the same before.)"""
    run(["train", TICKETS / "train", "-o", tmp_path / "local.joblib"])
    run(["train", TICKETS / "train", "-o", tmp_path / "cluster.joblib", "--dask", cluster.address])
    assert (tmp_path / "local.joblib").read_bytes() == (tmp_path / "cluster.joblib").read_bytes()


def test_a_worker_killed_mid_run_loses_and_doubles_nothing(tmp_path):
    from nbtext.cluster import train_on_cluster
    from nbtext.training import train

    own = Cluster(workers=2)
    try:
        data = corpus_path("spamassassin-2003")
        killed = []

        def kill_one_worker(_: int) -> None:
            if not killed:
                os.killpg(own.workers[0].pid, signal.SIGKILL)
                killed.append(time.monotonic())

        with distributed.Client(own.address) as client:
            model = train_on_cluster(client, LabelledCorpus([str(data)]), analyzer=DEFAULT_ANALYZER, tf=DEFAULT_TF,
                                     doc_norm=DEFAULT_DOC_NORM, shard_bytes=256 * 1024, on_shard=kill_one_worker)
        assert killed and own.workers[0].wait(timeout=30) is not None
        local = train(LabelledCorpus([str(data)]))
        assert model.counts.class_docs.tolist() == [2500, 500]
        assert_same_counts(model.counts.to_dict(), local.counts.to_dict())
    finally:
        own.stop()


def test_a_path_the_workers_cannot_read_is_named(cluster, tmp_path):
    from nbtext.cluster import train_on_cluster

    for label in ("billing", "shipping"):
        (tmp_path / label).mkdir()
        for source in sorted((TICKETS / "train" / label).iterdir())[:5]:
            (tmp_path / label / source.name).write_bytes(source.read_bytes())
    corpus = LabelledCorpus([str(tmp_path)])  # listed here ...
    gone = tmp_path / "shipping" / sorted(os.listdir(tmp_path / "shipping"))[0]
    gone.unlink()  # ... and not there when a worker reads it
    with distributed.Client(cluster.address) as client, pytest.raises(DataError) as error:
        train_on_cluster(client, corpus, analyzer=DEFAULT_ANALYZER, tf="log", doc_norm="l2")
    assert f"cannot read {gone}" in str(error.value) and "same path" in str(error.value)


@pytest.mark.parametrize(("address", "why"), [("nonsense", "missing port number in address 'nonsense'"),
                                            ("tcp://host:port", "invalid literal for int() with base 10: 'port'")])
def test_an_address_that_is_no_scheduler_address_is_one_line(tmp_path, tickets_model, address, why):
    """--dask nonsense (a variable left empty, a host without its port) ended in a ValueError
    traceback from Dask."""
    for args in (["train", TICKETS / "train", "-o", tmp_path / "m"], ["predict", tickets_model, TICKETS / "test"]):
        result = run([*args, "--dask", address], expect=1)
        assert result.stderr.endswith(f"Error: --dask {address}: not a scheduler address ({why}); expected one such as "
                                      "tcp://HOST:8786, or local[:N]\n")


def test_a_tsv_and_a_jsonl_corpus_train_and_predict_on_the_cluster_as_locally(cluster, sms, tmp_path):
    """Line files are read by the workers in byte ranges: the model file is the local one's,
    and the rows of a table or JSONL file come back predicted in input order."""
    train_lines = (sms / "train.tsv").read_bytes().decode("utf-8", "replace").splitlines()
    test_lines = (sms / "test.tsv").read_bytes().decode("utf-8", "replace").splitlines()
    (tmp_path / "train.jsonl").write_text("".join(json.dumps(dict(zip(("label", "text"), line.split("\t", 1)))) + "\n"
                                                  for line in train_lines))
    (tmp_path / "test.jsonl").write_text("".join(json.dumps({"text": line.split("\t", 1)[1]}) + "\n"
                                                 for line in test_lines))
    (tmp_path / "test.tsv").write_text("label\ttext\n" + "\n".join(test_lines) + "\n")
    for data, test in ((sms / "train.tsv", tmp_path / "test.tsv"), (tmp_path / "train.jsonl", tmp_path / "test.jsonl")):
        local, remote = tmp_path / f"{data.name}.local", tmp_path / f"{data.name}.cluster"
        run(["train", data, "-o", local])
        result = run(["train", data, "-o", remote, "--dask", cluster.address])
        assert result.stderr.startswith("read 1,672 documents\n")
        assert local.read_bytes() == remote.read_bytes()
        here = run(["predict", local, test, "--text-column", "text", "--proba"]).stdout.splitlines()
        there = run(["predict", remote, test, "--text-column", "text", "--proba", "--dask", cluster.address])
        assert len(here) == 3902 and there.stdout.splitlines() == here


def test_a_table_in_many_parts_with_a_numeric_column_trains_as_locally(cluster, sms, tmp_path):
    """A CSV whose quoted texts hold line breaks, cut in 40 parts: the counts equal local
    training's bit for bit; the Gaussian sums of its numeric column, added up in another order,
    to rounding."""
    from nbtext.cluster import train_on_cluster
    from nbtext.readers.tables import Columns
    from nbtext.training import train

    rows = [line.split("\t", 1) for line in (sms / "train.tsv").read_bytes().decode("utf-8", "replace").splitlines()]
    with open(tmp_path / "sms.csv", "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["label", "text", "length"])
        writer.writerows([label, text.replace(". ", ".\n"), len(text)] for label, text in rows)
    columns = Columns(numeric=("length",))
    size = (tmp_path / "sms.csv").stat().st_size
    with distributed.Client(cluster.address) as client:
        model = train_on_cluster(client, LabelledCorpus([str(tmp_path / "sms.csv")], columns=columns),
                                 analyzer=DEFAULT_ANALYZER, tf=DEFAULT_TF, doc_norm=DEFAULT_DOC_NORM,
                                 block_bytes=size // 40)
    local = train(LabelledCorpus([str(tmp_path / "sms.csv")], columns=columns))
    assert model.counts.class_docs.tolist() == [1435, 237] == local.counts.class_docs.tolist()
    assert_same_counts(model.counts.to_dict(), local.counts.to_dict())
    assert model.summary == local.summary and model.texts.tobytes() == local.texts.tobytes()
    np.testing.assert_allclose(model.columns.mean, local.columns.mean, rtol=1e-12)
    np.testing.assert_allclose(model.columns.m2, local.columns.m2, rtol=1e-9)


def test_a_table_with_columns_trains_predicts_and_explains_on_the_cluster(cluster, tmp_path):
    """The wine table, numbers without text, through the command line: the model file is the
    local one's, and the answers with each column's weight are the local ones."""
    from sklearn.datasets import load_wine

    wine = load_wine()
    names = [name.replace("/", "_") for name in wine.feature_names]
    with open(tmp_path / "wine.csv", "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["label", *names])
        writer.writerows([f"cultivar{target}", *map(repr, row.tolist())] for row, target in zip(wine.data, wine.target))
    options = ["--numeric-columns", ",".join(names)]
    run(["train", tmp_path / "wine.csv", *options, "-o", tmp_path / "local.joblib"])
    run(["train", tmp_path / "wine.csv", *options, "-o", tmp_path / "cluster.joblib", "--dask", cluster.address])
    assert (tmp_path / "local.joblib").read_bytes() == (tmp_path / "cluster.joblib").read_bytes()
    args = ["predict", tmp_path / "local.joblib", tmp_path / "wine.csv", "--explain", "2"]
    here = run(args).stdout
    assert run([*args, "--dask", cluster.address]).stdout == here and len(here.splitlines()) == 178
    assert "alcohol" in here


def test_a_worker_killed_while_merging_loses_and_doubles_nothing(tmp_path):
    """The first worker to start adding parts' counts up dies there and then: Dask runs the
    merge again elsewhere, and the counts of the parts the dead worker held again, once."""
    from nbtext.cluster import train_on_cluster
    from nbtext.training import train

    marker = str(tmp_path / "died")

    class DieOnFirstMerge(distributed.WorkerPlugin):
        def transition(self, key, start, finish, **kwargs):
            name = key[0] if isinstance(key, tuple) else key
            if finish == "executing" and str(name).startswith("merged-aggregate") and not os.path.exists(marker):
                open(marker, "w").close()
                os._exit(1)

    own = Cluster(workers=2)
    try:
        data = corpus_path("spamassassin-2003")
        with distributed.Client(own.address) as client:
            client.register_plugin(DieOnFirstMerge())
            model = train_on_cluster(client, LabelledCorpus([str(data)]), analyzer=DEFAULT_ANALYZER, tf=DEFAULT_TF,
                                     doc_norm=DEFAULT_DOC_NORM, shard_bytes=256 * 1024)
        assert os.path.exists(marker)
        local = train(LabelledCorpus([str(data)]))
        assert model.counts.class_docs.tolist() == [2500, 500]
        assert_same_counts(model.counts.to_dict(), local.counts.to_dict())
    finally:
        own.stop()


def test_mbox_files_are_read_message_by_message_as_mail(cluster, tmp_path):
    """Mailboxes exported one per class are mail read message by message; --dask reads them
    so with --input-format email, each worker splitting the files it reads, and names that
    option where they were recognised as mbox files (not one document a mailbox, as before)."""
    spamassassin = corpus_path("spamassassin-2003")
    for label, folder in (("ham", "ham"), ("other", "spam")):  # no spam class (nor Junk): a plain model, as --dask
        (tmp_path / "boxes" / label).mkdir(parents=True)
        box = mailbox.mbox(tmp_path / "boxes" / label / "inbox.mbox")
        for path in sorted((spamassassin / folder).iterdir())[:100]:
            box.add(path.read_bytes())
        box.close()
    local = run(["train", tmp_path / "boxes", "-o", tmp_path / "local"]).stderr
    result = run(["train", tmp_path / "boxes", "-o", tmp_path / "m", "--dask", cluster.address], expect=1)
    assert result.stderr.endswith("this is mbox; --input-format email reads each message of its mbox files\n")
    on_cluster = run(["train", tmp_path / "boxes", "--input-format", "email", "-o", tmp_path / "m",
                      "--dask", cluster.address]).stderr
    assert on_cluster.startswith("read 200 documents\n") and local.startswith("read 200 documents\n")
    assert_same_counts(joblib.load(tmp_path / "m")["counts"], joblib.load(tmp_path / "local")["counts"])


def test_the_workers_report_the_messages_with_no_word_the_model_knows(cluster, sms, tmp_path):
    """SMS messages as files, scored on the cluster: the same answers and the same report as
    one local process, the 7 messages in which the model knows no word named in both."""
    model = tmp_path / "sms.joblib"
    run(["train", sms / "train.tsv", "-o", model])
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    for number, doc in enumerate(LabelledCorpus([str(sms / "test.tsv")]), 1):
        (inbox / f"{number:04d}.txt").write_text(doc.text)
    local = run(["predict", model, inbox, "-v"])
    remote = run(["predict", model, inbox, "-v", "--dask", cluster.address])
    assert remote.stdout == local.stdout and local.stdout.count("\n") == 3902
    assert remote.stderr == local.stderr
    report = local.stderr.splitlines()
    assert report[:2] == ["read 3,902 documents", "7 with no word the model knows (no words to go by: Complement "
                                                   "NB gives every class the same probability)"]
    assert report[2:9] == [f"  {inbox}/{number:04d}.txt" for number in (432, 899, 1599, 1705, 2809, 3153, 3745)]
