"""Damaged model files: every command, given one, stops with one line that says so, never a
traceback, and never answers as if nothing were wrong.

Three kinds of damage: bits flipped anywhere in the file, as a disk or a copy may flip them
(the checksum finds them); and parts of the wrong shape, type, length or range, written with a
checksum that matches (as a faulty writer would) and without one (as files of format 1 are),
which the checks on loading find. Each is run through every command that reads a model.
"""

from __future__ import annotations

import copy
import random
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from nbtext import modelfile
from nbtext.errors import EXIT_DATA_ERROR, EXIT_FILTER_ERROR

from .conftest import TICKETS, run

#: Documents predict answers with each model, one a line.
LINES = "my invoice is wrong\nthe parcel never arrived\nthe app crashes on start\n"
MESSAGE = sorted((TICKETS / "test" / "billing").iterdir())[0]


@pytest.fixture(scope="module")
def originals(tmp_path_factory) -> dict[str, Path]:
    """A plain model and a spam filter, trained on the tickets: each part of a model file."""
    folder = tmp_path_factory.mktemp("originals")
    run(["train", TICKETS / "train", "-o", folder / "plain.joblib", "--idf", "--min-df", "2"])
    run(["train", TICKETS / "train", "-o", folder / "filter.joblib", "--spam-label", "billing"])
    return {"plain": folder / "plain.joblib", "filter": folder / "filter.joblib"}


def commands(model: Path, original: Path, scratch: Path) -> list[tuple[list, int]]:
    """Every command that reads a model, with ``model``; writers get a copy of it. Each with the
    exit status that means "an error, said in a line": filter's is bogofilter's 3."""
    copied = scratch / "copy.joblib"
    shutil.copyfile(model, copied)
    return [
        (["predict", model, "--proba", "--top", "2"], EXIT_DATA_ERROR),
        (["eval", model, TICKETS / "test"], EXIT_DATA_ERROR),
        (["info", model, "--format", "json"], EXIT_DATA_ERROR),
        (["inspect-top-words", model, "--top", "3"], EXIT_DATA_ERROR),
        (["filter", model, MESSAGE], EXIT_FILTER_ERROR),
        (["learn", copied, "--spam", MESSAGE], EXIT_DATA_ERROR),
        (["train", TICKETS / "test", "--update", copied, "-o", scratch / "updated.joblib"], EXIT_DATA_ERROR),
        (["merge", model, original, "-o", scratch / "merged.joblib"], EXIT_DATA_ERROR),
    ]


#: What a command may say of a damaged model (a part the first day's layouts lacked, in a file of
#: format 1, is taken for one of them); or of one that is no filter, to filter and learn; or,
#: to merge, how it differs from the sound one, where the damage made a model that could be
#: sound (a filter's doc_norm l2 replaced by none: no check can tell its counts from such a
#: model's).
SAID = ("damaged nbtext model", "not an nbtext model file", "written by an early build of nbtext", "made by nbtext",
        "not a spam filter", "cannot add counts weighted differently")


def answers(model: Path) -> str:
    return run(["predict", model, "--proba", "--top", "2"], input=LINES).stdout


def run_all(model: Path, original: Path, scratch: Path) -> dict[str, int]:
    """Run every command on ``model``: none may end in a traceback (an exception out of the
    command), and each either works or says in one line that the model is damaged. Returns
    each command's exit status."""
    statuses = {}
    for args, error in commands(model, original, scratch):
        result = run(args, input=LINES, expect=None)  # an exception escapes, and fails the test
        assert result.exit_code in (0, 1, 2, error), (args, result.stderr)
        if result.exit_code == error and args[0] not in ("learn",):
            assert any(said in result.stderr for said in SAID), (args, result.stderr)
            assert result.stderr.count("\n") == 1, result.stderr
        statuses[args[0]] = result.exit_code
    return statuses


@pytest.mark.parametrize("name", ["plain", "filter"])
def test_a_flipped_bit_anywhere_is_found_or_changes_nothing(originals, name, tmp_path):
    """200 bits flipped one at a time across the file (each in a new copy): the model is refused
    as damaged, or it answers exactly as the original does (a flip in the padding before an
    array's bytes, which holds nothing). 3 of 40 such flips used to change answers silently."""
    original = originals[name]
    expected = answers(original)
    data = original.read_bytes()
    rng = random.Random(f"flips of {name}")
    refused = 0
    for position in sorted(rng.sample(range(len(data)), 200)):
        damaged = bytearray(data)
        damaged[position] ^= 1 << rng.randrange(8)
        path = tmp_path / f"flip-{position}.joblib"
        path.write_bytes(bytes(damaged))
        result = run(["predict", path, "--proba", "--top", "2"], input=LINES, expect=None)
        if result.exit_code == 0:
            assert result.stdout == expected, f"a flip at byte {position} changed the answers"
        else:
            refused += 1
            assert result.exit_code == EXIT_DATA_ERROR and result.stderr.count("\n") == 1, result.stderr
    assert refused >= 180
    # and every other command, on a few of them
    for position in rng.sample(range(len(data)), 6):
        damaged = bytearray(data)
        damaged[position] ^= 1 << rng.randrange(8)
        path = tmp_path / "flipped.joblib"
        path.write_bytes(bytes(damaged))
        run_all(path, original, tmp_path)


def mutations(payload: dict[str, Any]) -> list[tuple[str, Any]]:
    """(name, payload changed) for each way of damaging a model file's parts seen or imagined:
    a part missing, of another type or shape, of another length, indices out of range, and
    values no count has."""
    def changed(path: tuple, value: Any = None, *, delete: bool = False) -> dict[str, Any]:
        new = copy.deepcopy(payload)
        holder = new
        for key in path[:-1]:
            holder = holder[key]
        if delete:
            del holder[path[-1]]
        else:
            holder[path[-1]] = value(holder[path[-1]]) if callable(value) else value
        return new

    def bump(array: np.ndarray, at: int = 0, by: int = 10**6) -> np.ndarray:
        array = np.array(array)
        array[at] += by
        return array

    out = [(f"no {key}", changed((key,), delete=True)) for key in ("summary", "settings", "counts", "kept", "analyzer")]
    out += [
        ("summary without documents", changed(("summary", "documents"), delete=True)),
        ("summary's classes a list", changed(("summary", "documents_per_class"), [1, 2, 3])),
        ("summary's inputs a string", changed(("summary", "inputs"), "/data")),
        ("a class index out of range", changed(("counts", "class_index"), lambda a: bump(a))),
        ("a term index below 0", changed(("counts", "term_index"), lambda a: bump(a, -1, -(10**7)))),
        ("counts of another length", changed(("counts", "values", "term_counts"), lambda a: a[:-1])),
        ("a count NaN", changed(("counts", "values", "doc_freq"), lambda a: np.append(a[:-1], np.nan))),
        ("a count below 0", changed(("counts", "values", "term_counts"), lambda a: -np.asarray(a))),
        ("class documents of another length", changed(("counts", "class_docs"), lambda a: a[:2])),
        ("a class twice", changed(("counts", "classes"), lambda c: [c[0], *c[:-1]])),
        ("more terms said than stored", changed(("counts", "n_terms"), lambda n: n + 1)),
        ("terms cut short", changed(("counts", "terms"), lambda a: a[: len(a) // 2])),
        ("an unknown weighting", changed(("counts", "tf"), "sqrt")),
        ("class indices as floats", changed(("counts", "class_index"), lambda a: a.astype(np.float64))),
        ("class indices in 2-D", changed(("counts", "class_index"), lambda a: a.reshape(1, -1))),
        ("class indices a list", changed(("counts", "class_index"), lambda a: a.tolist())),
        ("a kept term out of range", changed(("kept", "index"), lambda a: bump(a, -1))),
        ("kept terms out of order", changed(("kept", "index"), lambda a: a[::-1].copy())),
        ("kept term ends shifted", changed(("kept", "term_ends"), lambda a: a + 1)),
        ("kept terms of another number", changed(("kept", "term_ends"), lambda a: a[:-1])),
        ("offsets out of order", changed(("kept", "statistic", "indptr"), lambda a: a[::-1].copy())),
        ("a row out of range", changed(("kept", "statistic", "rows"), lambda a: bump(a))),
        ("sums in float32", changed(("kept", "statistic", "values"), lambda a: a.astype(np.float32))),
        ("a sum infinite", changed(("kept", "statistic", "values"), lambda a: np.append(a[:-1], np.inf))),
        ("another number of rows", changed(("kept", "statistic", "n_rows"), lambda n: n + 1)),
        ("alpha below 0", changed(("settings", "alpha"), -1.0)),
        ("alpha a string", changed(("settings", "alpha"), "0.2")),
        ("an unknown variant", changed(("settings", "variant"), "gaussian")),
        ("an unknown setting", changed(("settings", "colour"), "red")),
        ("min_df a string", changed(("settings", "min_df"), "2")),
        ("priors a number", changed(("settings", "fit_prior"), 1)),
        ("a calibration of temperature 0", changed(("settings", "calibration"), {"temperature": 0.0})),
        ("an n-gram range backwards", changed(("analyzer", "ngram_range"), [2, 1])),
        ("unknown tokens", changed(("analyzer", "tokens"), "letters")),
        ("stop words a string", changed(("analyzer", "stop_words"), "the")),
        ("no analyzer settings", changed(("analyzer",), {})),
        ("digests as floats", changed(("texts",), lambda a: a.astype(np.float64))),
        ("an unknown part", changed(("extra",), [1, 2])),
        ("no smoothing", changed(("settings", "alpha"), 0.0)),
        ("smoothing as text", changed(("settings", "alpha"), "0.2")),
    ]
    if payload["settings"]["spam"]:
        out += [("a spam label of no class", changed(("settings", "spam", "label"), "junk")),
                ("cut-offs the wrong way round", changed(("settings", "spam", "ham_cutoff"), 0.999)),
                ("a calibration slope NaN", changed(("settings", "spam", "slope"), float("nan"))),
                ("an unknown way of combining", changed(("settings", "spam", "combining"), "fisher"))]
    if payload["kept"]["idf"] is not None:
        out += [("IDF of another length", changed(("kept", "idf"), lambda a: a[:-1]))]
    return out


def written(payload: dict[str, Any], path: Path, *, format_version: int) -> Path:
    """``payload`` written as a model file of ``format_version``: with its checksum made anew
    (2), or with none (1)."""
    payload = {key: value for key, value in payload.items() if key != "checksum"}
    payload["format_version"] = format_version
    if format_version >= 2:
        payload["checksum"] = f"{modelfile.checksum(payload):08x}"
    with open(path, "wb") as handle:
        modelfile.dump(payload, handle)
    return path


@pytest.mark.parametrize("format_version", [2, 1])
@pytest.mark.parametrize("name", ["plain", "filter"])
def test_parts_of_the_wrong_shape_type_or_range_are_refused_in_one_line(originals, name, format_version, tmp_path):
    """Parts of the wrong shape, type, length or range, or a part missing, gave 132 tracebacks in
    1,328 runs of the commands. Loading checks each part; every command says the file is
    damaged, and what is wrong with it."""
    payload = modelfile.load(str(originals[name]))
    for what, damaged in mutations(payload):
        path = written(damaged, tmp_path / "damaged.joblib", format_version=format_version)
        statuses = run_all(path, originals[name], tmp_path)
        assert statuses["predict"] == EXIT_DATA_ERROR, f"{what}: answered as a sound model"


def leaves(value: Any, path: tuple = ()) -> list[tuple]:
    """The path of every part of a payload: each dict's and list's items, down to arrays and values."""
    if isinstance(value, dict):
        return [path, *(leaf for key, item in value.items() for leaf in leaves(item, (*path, key)))]
    if isinstance(value, list):
        return [path, *(leaf for i, item in enumerate(value) for leaf in leaves(item, (*path, i)))]
    return [path]


def out_of_range(dtype: np.dtype, rng: random.Random) -> int:
    """A value past any index or count a model holds, that ``dtype`` can hold (a uint8 holds no -1)."""
    value = rng.choice([-1, 2**30, 255])
    return value % (256 if dtype == np.uint8 else 2**31) if dtype.kind == "u" else value


def garbage(value: Any, rng: random.Random) -> Any:
    """Something else in ``value``'s place: another type, or an array of another shape, dtype,
    length or range than it had."""
    if isinstance(value, np.ndarray) and value.size and rng.random() < 0.7:
        return rng.choice([
            lambda a: a[: rng.randrange(len(a))], lambda a: np.concatenate([a, a[:1]]), lambda a: a.astype(np.int8),
            lambda a: a.reshape(1, -1), lambda a: np.full_like(a, out_of_range(a.dtype, rng)),
            lambda a: a.astype(np.float64) * np.nan, lambda a: np.flip(a).copy(),
        ])(value)
    return rng.choice([None, -1, 0, 10**300, 1e308, float("nan"), "", "x", [], {}, [1, "a"], {"a": 1}, True,
                       np.zeros(3), np.array([-5], dtype=np.int64)])


@pytest.mark.parametrize("name", ["plain", "filter"])
def test_any_part_of_a_model_replaced_by_anything_is_no_traceback(originals, name, tmp_path):
    """A seeded random part of the payload (any dict, list, array or value) replaced by a value of
    another type, or an array of another shape, dtype, length or range, 80 times, each written
    with a checksum that matches: every command still ends in an answer or in one line."""
    payload = modelfile.load(str(originals[name]))
    paths = [path for path in leaves(payload) if path and path[0] not in ("format", "checksum")]
    rng = random.Random(f"garbage in {name}")
    for _ in range(80):
        path = rng.choice(paths)
        damaged = copy.deepcopy(payload)
        holder = damaged
        for key in path[:-1]:
            holder = holder[key]
        holder[path[-1]] = garbage(holder[path[-1]], rng)
        run_all(written(damaged, tmp_path / "damaged.joblib", format_version=2), originals[name], tmp_path)


def test_a_sound_model_written_again_answers_as_it_did(originals, tmp_path):
    """The mutations' writer is no source of damage itself: the payload written again, with and
    without a checksum, answers as the file it came from."""
    for name, original in originals.items():
        payload = modelfile.load(str(original))
        for version in (1, 2):
            path = written(payload, tmp_path / f"{name}-{version}.joblib", format_version=version)
            assert answers(path) == answers(original)
            statuses = run_all(path, original, tmp_path)
            mail = {"filter": statuses.pop("filter"), "learn": statuses.pop("learn")}
            assert set(statuses.values()) == {0}
            # a filter gives a verdict (its exit status: spam, ham, unsure) and learns; a plain model is
            # no filter, and says so
            if name == "filter":
                assert mail["filter"] in (0, 1, 2) and mail["learn"] == 0
            else:
                assert mail == {"filter": 3, "learn": 1}


def test_copyregs_extension_codes_do_not_reach_past_the_allow_list(tmp_path):
    """copyreg's extension codes name globals by number; once an unpickler in the process has
    looked one up, pickle takes it from copyreg's cache without find_class, the allow-list. The
    loader reads no extension code at all."""
    import copyreg
    import pickle

    copyreg.add_extension("os", "getcwd", 0x7E1)
    try:
        assert pickle.loads(b"\x80\x02\x82\xe1\x07)R.".replace(b"\x82\xe1\x07", b"\x83\xe1\x07")) is not None
        path = tmp_path / "ext.joblib"
        path.write_bytes(b"\x80\x04\x83\xe1\x07)R.")  # EXT2 0x7e1, (), REDUCE: os.getcwd()
        result = run(["predict", path], input="x\n", expect=EXIT_DATA_ERROR)
        assert result.stderr == f"Error: {path}: not an nbtext model file, or truncated (KeyError)\n"
    finally:
        copyreg.remove_extension("os", "getcwd", 0x7E1)
        copyreg.clear_extension_cache()
