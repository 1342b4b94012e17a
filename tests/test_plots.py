"""Pictures of an evaluation (``eval --plot``), checked by what the files hold: an SVG keeps its
text, so the class names, the confusion matrix's counts, the calibration's errors and a filter's
cut-offs can be read back. And the confusion matrix shaded on a terminal, plain in a pipe."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from html import unescape

import numpy as np
import pytest

from nbtext.calibration import reliability, tempered
from nbtext.model import Model
from nbtext.readers import LabelledCorpus

from .conftest import TICKETS, corpus_path, on_a_terminal, run


def _texts(svg_path) -> list[str]:
    return [unescape(text) for text in re.findall(r"<text[^>]*>([^<]*)</text>", svg_path.read_text())]


def test_the_picture_holds_the_classes_and_the_counts(tickets_model, tmp_path):
    result = run(["eval", tickets_model, TICKETS / "test", "--format", "json", "--plot", tmp_path / "r.svg"])
    report = json.loads(result.stdout)
    assert f"plot -> {tmp_path / 'r.svg'}" in result.stderr
    texts = _texts(tmp_path / "r.svg")
    assert set(report["labels"]) <= set(texts)
    counts = sorted(str(n) for row in report["confusion_matrix"] for n in row if n)
    shown = sorted(text for text in texts if text.isdigit())
    assert shown == counts
    assert f"model, ECE {report['ece']:.3f}" in texts
    run(["eval", tickets_model, TICKETS / "test", "--plot", tmp_path / "r.png"])
    assert (tmp_path / "r.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_calibrated_model_shows_its_reliability_before_and_after(tmp_path):
    run(["train", TICKETS / "train", "--calibrate", "-o", tmp_path / "c.joblib"])
    report = json.loads(run(["eval", tmp_path / "c.joblib", TICKETS / "test", "--format", "json", "--plot",
                             tmp_path / "c.svg"]).stdout)
    model = Model.load(tmp_path / "c.joblib")
    docs = list(LabelledCorpus([str(TICKETS / "test")]))
    truth = np.array([model.classes.index(doc.label) for doc in docs])
    raw = model.core.predict_log_proba(model.vectorize([doc.text for doc in docs]))  # untempered
    texts = _texts(tmp_path / "c.svg")
    assert f"before calibration, ECE {reliability(raw, truth)['ece']:.3f}" in texts
    assert f"after calibration, ECE {report['ece']:.3f}" in texts
    np.testing.assert_allclose(tempered(raw, model.settings["calibration"]["temperature"]),
                               model.predict_log_proba([doc.text for doc in docs]), atol=1e-12)


def test_a_filter_shows_its_scores_and_cutoffs(tmp_path):
    root = corpus_path("spamassassin-2003")
    for part in ("train", "test"):
        for label in ("ham", "spam"):
            (tmp_path / part / label).mkdir(parents=True)
    for label in ("ham", "spam"):
        for i, path in enumerate(sorted((root / label).iterdir())[:600]):
            (tmp_path / ("test" if i % 3 == 0 else "train") / label / path.name).symlink_to(path)
    run(["train", "--input-format", "email", tmp_path / "train", "-o", tmp_path / "f.joblib"])
    report = json.loads(run(["eval", tmp_path / "f.joblib", tmp_path / "test", "--input-format", "email",
                             "--format", "json", "--plot", tmp_path / "f.svg"]).stdout)
    spam = Model.load(tmp_path / "f.joblib").settings["spam"]
    texts = [text.strip() for text in _texts(tmp_path / "f.svg")]
    assert f"ham cut-off {spam['ham_cutoff']:.2f}" in texts and f"spam cut-off {spam['spam_cutoff']:.2f}" in texts
    support = {label: report["per_class"][label]["support"] for label in ("ham", "spam")}
    assert f"ham ({support['ham']:,})" in texts and f"spam ({support['spam']:,})" in texts


@pytest.mark.parametrize("args, message", [
    (["--plot", "r.txt"], "a picture is written as .svg, .png, .pdf"),
    (["--plot", "r.svg", "--cv", "3"], "--plot draws a MODEL's evaluation"),
])
def test_a_picture_that_cannot_be_drawn_is_a_usage_error(args, message, tickets_model, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = run(["eval", tickets_model, TICKETS / "test", *args], expect=2)
    assert message in result.stderr


def test_without_matplotlib_the_message_names_the_extra(tickets_model, tmp_path):
    """matplotlib made unimportable in a real nbtext process, as where the extra is not installed."""
    script = ("import sys; sys.modules['matplotlib'] = None\n"
              "from nbtext.cli import main; sys.argv = ['nbtext'] + sys.argv[1:]; main()")
    done = subprocess.run([sys.executable, "-c", script, "eval", str(tickets_model), str(TICKETS / "test"),
                           "--plot", str(tmp_path / "r.svg")], capture_output=True, text=True)
    assert done.returncode == 2
    assert "pip install 'nbtext[plot]'" in done.stderr
    assert not (tmp_path / "r.svg").exists()


def test_the_confusion_matrix_is_shaded_on_a_terminal_and_plain_in_a_pipe(tickets_model):
    shown = on_a_terminal("eval", str(tickets_model), str(TICKETS / "test"), escapes=True)
    matrix = shown[shown.index("true \\ predicted"):].split("top-class calibration")[0]
    assert "\x1b[32m40" in matrix  # the diagonal green
    assert re.search(r"\x1b\[31m[12] ", matrix)  # a confusion red
    piped = run(["eval", tickets_model, TICKETS / "test"]).stdout
    assert "\x1b[" not in piped


def test_a_learning_curve_ends_at_cross_validations_figure(tmp_path):
    points = json.loads(run(["eval", "--cv", "3", TICKETS / "train", "--learning-curve", "--format", "json",
                             "--plot", tmp_path / "lc.svg"]).stdout)
    whole = json.loads(run(["eval", "--cv", "3", TICKETS / "train", "--format", "json"]).stdout)
    assert [p["share"] for p in points] == [0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 1.0]
    sizes = [p["documents"] for p in points]
    assert sizes == sorted(sizes) and sizes[-1] == 243 * 2 / 3
    assert points[-1]["accuracy"] == whole["accuracy"]  # all of each fold's training documents: the same models
    assert points[0]["accuracy"]["mean"] < points[-1]["accuracy"]["mean"]
    texts = _texts(tmp_path / "lc.svg")
    assert [f"{p['accuracy']['mean']:.3f}" for p in points] == [t for t in texts if re.fullmatch(r"0\.\d{3}", t)]
    refused = run(["eval", TICKETS / "train", TICKETS / "test", "--learning-curve"], expect=2)
    assert "give --cv K" in refused.stderr


def test_a_search_is_drawn_setting_by_setting(tmp_path):
    board = json.loads(run(["tune", TICKETS / "train", "--grid", '{"alpha": [0.1, 1.0], "variant": ["complement", '
                            '"multinomial"], "min_df": [1]}', "--format", "json", "--plot", tmp_path / "t.svg",
                            "-o", tmp_path / "best.joblib"]).stdout)
    texts = _texts(tmp_path / "t.svg")
    assert "alpha" in texts and "variant" in texts and "min_df" not in texts  # only what the search varied
    assert f"4 settings, best accuracy {board[0]['mean']:.4f}" in texts
    assert {"0.1", "1.0", "complement", "multinomial"} <= set(texts)
