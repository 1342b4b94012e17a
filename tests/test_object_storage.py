"""DATA in object storage: a real S3 API served on loopback by moto's server, read through
fsspec and s3fs, by this process and by the workers of a Dask cluster."""

from __future__ import annotations

import os

import joblib
import pytest

from .conftest import assert_same_counts, run

pytest.importorskip("s3fs", reason="s3:// URLs need nbtext[cloud]")
moto_server = pytest.importorskip("moto.server", reason="the S3 tests serve S3 with moto[server]")
distributed = pytest.importorskip("distributed", reason="the cluster tests need nbtext[dask]")

_ENVIRONMENT = ("AWS_ENDPOINT_URL", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_DEFAULT_REGION")


@pytest.fixture(scope="module")
def bucket(sms, tmp_path_factory):
    """A bucket ``corpora`` holding SMS spam's training lines (sms/train.tsv) and its test rows as
    a table (sms/test.tsv, with a header), on an S3 server on loopback that this process and its
    children reach through the environment, as a user's programs reach theirs."""
    server = moto_server.ThreadedMotoServer(ip_address="127.0.0.1", port=0)
    server.start()
    host, port = server.get_host_and_port()
    saved = {name: os.environ.get(name) for name in _ENVIRONMENT}
    os.environ.update(AWS_ENDPOINT_URL=f"http://{host}:{port}", AWS_ACCESS_KEY_ID="nbtext",
                      AWS_SECRET_ACCESS_KEY="nbtext", AWS_DEFAULT_REGION="us-east-1")
    import boto3

    s3 = boto3.client("s3")
    s3.create_bucket(Bucket="corpora")
    s3.put_object(Bucket="corpora", Key="sms/train.tsv", Body=(sms / "train.tsv").read_bytes())
    table = tmp_path_factory.mktemp("table") / "test.tsv"
    table.write_bytes(b"label\ttext\n" + (sms / "test.tsv").read_bytes())
    s3.put_object(Bucket="corpora", Key="sms/test.tsv", Body=table.read_bytes())
    yield table
    for name, value in saved.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value
    server.stop()


def test_an_s3_corpus_trains_and_predicts_here_as_the_same_files_on_disk(bucket, sms, tmp_path):
    from_s3 = run(["train", "s3://corpora/sms/train.tsv", "-o", tmp_path / "s3.joblib"])
    run(["train", sms / "train.tsv", "-o", tmp_path / "disk.joblib"])
    assert from_s3.stderr.startswith("read 1,672 documents\n")
    model = joblib.load(tmp_path / "s3.joblib")
    assert model["summary"]["inputs"] == ["s3://corpora/sms/train.tsv"]
    assert_same_counts(model["counts"], joblib.load(tmp_path / "disk.joblib")["counts"])
    remote = run(["predict", tmp_path / "s3.joblib", "s3://corpora/sms/test.tsv", "--text-column", "text"]).stdout
    here = run(["predict", tmp_path / "s3.joblib", bucket, "--text-column", "text"]).stdout
    assert len(here.splitlines()) == 3902
    assert remote == here.replace(str(bucket), "s3://corpora/sms/test.tsv")


def test_an_s3_corpus_trains_and_predicts_on_a_cluster_as_here(bucket, tmp_path):
    """The workers, started after the environment names the S3 server, read the bucket
    themselves: the model file is the one trained here, byte for byte."""
    from .test_cluster import Cluster

    cluster = Cluster(workers=2)
    try:
        run(["train", "s3://corpora/sms/train.tsv", "-o", tmp_path / "here.joblib"])
        run(["train", "s3://corpora/sms/train.tsv", "-o", tmp_path / "cluster.joblib", "--dask", cluster.address])
        assert (tmp_path / "here.joblib").read_bytes() == (tmp_path / "cluster.joblib").read_bytes()
        args = ["predict", tmp_path / "here.joblib", "s3://corpora/sms/test.tsv", "--text-column", "text", "--proba"]
        here = run(args).stdout
        assert run([*args, "--dask", cluster.address]).stdout == here and len(here.splitlines()) == 3902
    finally:
        cluster.stop()


def test_a_missing_key_is_named(bucket, tmp_path):
    result = run(["train", "s3://corpora/sms/nothing.tsv", "-o", tmp_path / "m"], expect=1)
    assert result.stderr.endswith("Error: s3://corpora/sms/nothing.tsv: no such file\n")


def test_a_url_to_predict_without_its_text_column_says_to_name_it(bucket, tmp_path):
    run(["train", "s3://corpora/sms/train.tsv", "-o", tmp_path / "m.joblib"])
    result = run(["predict", tmp_path / "m.joblib", "s3://corpora/sms/test.tsv"], expect=1)
    assert result.stderr.endswith("Error: s3://corpora/sms/test.tsv: a URL is read as a table or JSONL file, row by "
                                  "row: name its text column with --text-column\n")
