"""What nbtext writes: never over its own stdout, under the model's lock, atomically, keeping the
file's mode, and never a model lost to a closed pipe. Each writer is run as a real process."""

from __future__ import annotations

import os
import shutil
import signal
import stat
import subprocess
import sys
import textwrap
import time

import pytest

from nbtext.model import Model

from .conftest import TICKETS, nbtext_process, run


@pytest.fixture
def model(tmp_path):
    path = tmp_path / "m.joblib"
    run(["train", TICKETS / "train", "-o", path])
    return path


@pytest.mark.parametrize("command", [
    ["train", TICKETS / "train", "-o", "/dev/stdout"],
    ["train", TICKETS / "test", "--update", "/dev/stdout"],
    ["tune", TICKETS / "train", "-o", "/dev/stdout", "--grid", '{"alpha": [1]}'],
    ["merge", "MODEL", "-o", "/dev/stdout"],
    ["eval", "MODEL", TICKETS / "test", "--errors", "/dev/stdout"],
    ["eval", "MODEL", TICKETS / "test", "--errors", "/dev/stderr"],
], ids=["train", "update", "tune", "merge", "eval-errors", "eval-errors-stderr"])
def test_an_output_that_is_stdout_or_stderr_is_refused(command, model, tmp_path):
    """``nbtext train ... -o /dev/stdout >> log`` replaced the whole log with the model: the
    path was a link to the log itself. Every file a command writes (a model, eval's list of
    errors) is refused where it is the file stdout or stderr goes to, before anything is read."""
    log = tmp_path / "log"
    log.write_text("yesterday's run\n")
    with open(log, "ab") as out:
        args = [str(model) if arg == "MODEL" else str(arg) for arg in command]
        done = subprocess.run([sys.executable, "-m", "nbtext", *args], stdout=out,
                              stderr=out if "/dev/stderr" in command else subprocess.PIPE)
    assert done.returncode == 2
    assert log.read_text().startswith("yesterday's run\n")
    said = log.read_text() if "/dev/stderr" in command else done.stderr.decode()
    assert "the file std" in said and "goes to, which this command writes to as well" in said


def test_a_character_device_is_no_file_to_write_errors_to(model):
    result = run(["eval", model, TICKETS / "test", "--errors", "/dev/null"], expect=2)
    assert "/dev/null is a character device" in result.stderr


@pytest.mark.parametrize("stdout", ["closed pipe", "full disk"])
def test_tune_saves_the_best_model_before_it_prints(tmp_path, stdout):
    """``nbtext tune ... -o best.joblib | head -1`` ended with 141 and no model, and so did tune
    with its output on a full disk: the leaderboard was printed first, and the failed write
    stopped the command before the save. Here the output fails at its first write: the pipe's
    reader is gone before tune starts, or stdout is /dev/full; and Python writes each line as
    it is printed (PYTHONUNBUFFERED), as a terminal's or a shell's settings may have it."""
    best = tmp_path / "best.joblib"
    command = [sys.executable, "-m", "nbtext", "tune", str(TICKETS / "train"), "-o", str(best), "--grid",
               '{"alpha": [0.1, 1]}']
    environment = {**os.environ, "PYTHONUNBUFFERED": "1"}
    if stdout == "full disk":
        with open("/dev/full", "w") as full:
            done = subprocess.run(command, stdout=full, stderr=subprocess.PIPE, text=True, env=environment)
        assert done.returncode == 1 and "Error: cannot write the output: No space left on device" in done.stderr
    else:
        reading, writing = os.pipe()
        os.close(reading)
        done = subprocess.run(command, stdout=writing, stderr=subprocess.PIPE, text=True, env=environment)
        os.close(writing)
        assert done.returncode == 141
    assert Model.load(best).summary["tuned"]["cv"] == 3


def test_every_writer_of_a_model_takes_its_lock(tmp_path):
    """Six ``learn`` and three ``train --update`` at once on one model: each adds its documents,
    and none is lost. ``learn`` locked, ``train --update`` did not: it read the model, counted
    its documents, and wrote back what it had read plus its own, over the learns' meanwhile."""
    model = tmp_path / "filter.joblib"
    run(["train", TICKETS / "train", "-o", model, "--spam-label", "billing"])
    before = Model.load(model).summary["documents"]
    messages = sorted((TICKETS / "test").glob("*/*.txt"))
    writers, added = [], 0
    for i in range(6):
        folder = tmp_path / f"spam{i}"
        folder.mkdir()
        for message in messages[i * 10:(i + 1) * 10]:
            shutil.copyfile(message, folder / message.name)
        added += 10
        writers.append(["learn", model, "--spam", folder])
    for i in range(3):
        writers.append(["train", TICKETS / "test", "--update", model])
        added += len(messages)
    started = [nbtext_process(*writer, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE) for writer in writers]
    for process in started:
        _, err = process.communicate(timeout=300)
        assert process.returncode == 0, err.decode()
    assert Model.load(model).summary["documents"] == before + added


def test_a_replaced_model_keeps_its_mode_and_a_new_one_follows_the_umask(model, tmp_path):
    """Saved over, a spam filter kept 0600 (its words are the user's mail) became 0644."""
    model.chmod(0o600)
    run(["train", TICKETS / "test", "--update", model])
    assert stat.S_IMODE(model.stat().st_mode) == 0o600
    done = subprocess.run(["sh", "-c", f'umask 027 && "{sys.executable}" -m nbtext train {TICKETS / "train"} '
                                       f'-o {tmp_path / "new.joblib"}'], capture_output=True)
    assert done.returncode == 0 and stat.S_IMODE((tmp_path / "new.joblib").stat().st_mode) == 0o640


def test_a_save_killed_midway_leaves_a_temporary_file_the_next_save_removes(model, tmp_path):
    """kill -9 while a model is written leaves the hidden temporary file it was written to (tens
    of MB for a large model), which nothing removed. The next save of that model removes it;
    other hidden files beside it stay."""
    writer = subprocess.Popen([sys.executable, "-c", textwrap.dedent(f"""
        import time
        from nbtext import modelfile
        from nbtext.model import Model

        def stalled(payload, handle):
            handle.write(b"half a model")
            handle.flush()
            time.sleep(600)

        modelfile.dump = stalled
        Model.load({str(model)!r}).save({str(model)!r})
        """)])
    deadline = time.monotonic() + 60
    while not (left := [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]) and time.monotonic() < deadline:
        time.sleep(0.05)
    os.kill(writer.pid, signal.SIGKILL)
    writer.wait()
    assert len(left) == 1 and left[0].name.startswith(".m.joblib.") and left[0].exists()
    (tmp_path / ".m.joblib.notes").write_text("mine")
    run(["train", TICKETS / "test", "--update", model])
    assert not left[0].exists() and (tmp_path / ".m.joblib.notes").exists()
    assert Model.load(model).summary["documents"] == 243 + 120


def test_documents_added_again_are_counted_and_said(model):
    """``train --update`` with documents the model holds already counted them twice without a
    word; ``merge`` says so of repeated inputs, and now update and learn do too."""
    result = run(["train", TICKETS / "train", "--update", model])
    assert "243 of the 243 documents added are in" in result.stderr and "each now counts twice" in result.stderr
    assert Model.load(model).summary["documents"] == 2 * 243
    fresh = run(["train", TICKETS / "test", "--update", model])
    assert "already" not in fresh.stderr


def test_learn_on_a_model_in_a_read_only_folder_says_what_is_wrong(tmp_path):
    """The lock file beside the model could not be made: an OSError traceback. A read-only
    mount, as a user meets it (a root user is refused nothing a mode refuses)."""
    if shutil.which("unshare") is None or subprocess.run(["unshare", "-rm", "true"]).returncode:
        pytest.skip("needs unshare and user namespaces, for a read-only mount of its own")
    folder = tmp_path / "ro"
    folder.mkdir()
    run(["train", TICKETS / "train", "-o", folder / "f.joblib", "--spam-label", "billing"])
    message = next((TICKETS / "test" / "billing").iterdir())
    done = subprocess.run(["unshare", "-rm", "sh", "-c",
                           f"mount --bind {folder} {folder} && mount -o remount,ro,bind {folder} && "
                           f'"{sys.executable}" -m nbtext learn {folder / "f.joblib"} --spam {message}'],
                          capture_output=True, text=True)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert f"cannot take the model's lock, {folder / '.f.joblib.lock'} (Read-only file system)" in done.stderr
