"""The process a command runs in: its standard streams (closed ones stood in for, file names
written as their bytes), its signals (Ctrl-C, kill, a closed terminal) and how it ends when its
output cannot be written or its reader goes away."""

from __future__ import annotations

import codecs
import errno
import io
import os
import signal
import sys
from typing import Any

from ..errors import EXIT_BROKEN_PIPE, DataError

#: Writing the output failed: a full disk, a quota, a file size limit, a closed stdout.
_OUTPUT_LOST = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EBADF)


#: What OpenBLAS reads for its number of threads, the first one set winning.
BLAS_THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS", "OMP_NUM_THREADS")


def note_interrupts() -> list[int]:
    """Ctrl-C still raises KeyboardInterrupt (click says "Aborted!" and exits 1); the list
    returned gets an entry when it does, so that main can end the process as interrupted."""
    seen: list[int] = []

    def interrupt(number: int, _frame: Any) -> None:
        seen.append(number)
        raise KeyboardInterrupt

    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:  # not where it is ignored
        signal.signal(signal.SIGINT, interrupt)
    return seen


def end_as_interrupted() -> None:
    """End by Ctrl-C's signal, after the usual clean-up: a shell loop (``for f in *; do nbtext
    ...; done``) stops at Ctrl-C only when the command it ran died of SIGINT. An exit status of
    1 tells the shell the command handled the interrupt, and the loop went on to the next one.
    Python ends so when KeyboardInterrupt leaves the program, after its exit handlers (worker
    processes stopped) have run; the traceback is not shown, "Aborted!" said it."""
    def quiet(kind, error, traceback) -> None:
        if not issubclass(kind, KeyboardInterrupt):
            sys.__excepthook__(kind, error, traceback)

    sys.excepthook = quiet
    raise KeyboardInterrupt from None


def stop_cleanly_on(names: tuple[str, ...]) -> None:
    """``kill``, ``timeout`` and a closed terminal end a run as Ctrl-C does, through its
    clean-up: worker processes stopped (a kill that ended only this process left them and the
    forkserver running), a half-written model's temporary file removed. The exit status stays
    128 + the signal's number, as a shell reports for a killed process. A signal the caller
    ignores (``nohup``) stays ignored."""
    def stop(number: int, _frame: Any) -> None:
        raise SystemExit(128 + number)

    for name in names:
        number = getattr(signal, name, None)
        if number is not None and signal.getsignal(number) is signal.SIG_DFL:
            signal.signal(number, stop)


def stand_in_for_closed_streams() -> None:
    """Started with stdin, stdout or stderr closed, a process hands their numbers to the next
    files it opens (a model's temporary file could become descriptor 1, where a worker's
    inherited stdout writes): /dev/null holds them. Writing to a closed stdout is an error, as
    for any Unix tool; a closed stderr takes the messages nowhere, as asked. A closed stdin
    stays None, for the readers to refuse (``standard_input``)."""
    for number, stream in enumerate((sys.stdin, sys.stdout, sys.stderr)):
        if stream is None:
            held = os.open(os.devnull, os.O_RDWR)
            if held != number:
                os.dup2(held, number)
                os.close(held)
    if sys.stdout is None:
        sys.stdout = ClosedOutput()
    if sys.stderr is None:
        sys.stderr = open(os.devnull, "w")


class ClosedOutput(io.TextIOBase):
    """stdout when the command was started with it closed: what is written fails as writing to
    a bad file descriptor does, so that the answers are not lost without a word."""

    def write(self, text: str) -> int:
        raise OSError(errno.EBADF, "stdout is closed")


def names_as_their_bytes(stream) -> None:
    """A file name that is not valid UTF-8 (a latin-1 ``caf\xe9.txt``) reaches Python as
    surrogate escapes; under a UTF-8 locale such as en_US.UTF-8 stdout refuses them, and
    predict and filter stopped at that file. Written back as the name's own bytes, as ls does,
    the name stays one that ``cut -f1 | xargs cat`` can open. On stderr, which wrote them as
    backslash escapes, the same: a class folder of that name had its count printed out of line
    with the others', and a path that ``-v`` named could not be pasted into a command. A
    surrogate that is no byte's escape (``\\ud800``, in a term of a model a library caller
    trained on such text) is written as that escape, where it stopped inspect-top-words."""
    encoding = getattr(stream, "encoding", None)
    if encoding and codecs.lookup(encoding).name == "utf-8" and hasattr(stream, "reconfigure"):
        codecs.register_error("nbtext-bytes", bytes_or_escapes)
        stream.reconfigure(errors="nbtext-bytes")


def bytes_or_escapes(error: UnicodeError) -> tuple[bytes, int]:
    """The surrogates UTF-8 refused: a byte's escape (U+DC80 to U+DCFF) as that byte, any
    other as its backslash escape."""
    if not isinstance(error, UnicodeEncodeError):
        raise error
    written = (bytes([ord(ch) - 0xDC00]) if "\udc80" <= ch <= "\udcff" else ch.encode("ascii", "backslashreplace")
               for ch in error.object[error.start:error.end])
    return b"".join(written), error.end


def quiet_pipe() -> None:
    """Our reader went away (``| head -1``): stop quietly, as a Unix tool killed by SIGPIPE."""
    drop_unwritten_output()
    sys.exit(EXIT_BROKEN_PIPE)


def output_lost(error: OSError) -> DataError | None:
    """The error to report where ``error`` is the output's failing to be written (a full disk,
    a closed stdout), with the unwritten rest dropped; None for any other OSError."""
    if error.errno not in _OUTPUT_LOST:
        return None
    drop_unwritten_output()
    return DataError(f"cannot write the output: {error.strerror}")


def drop_unwritten_output() -> None:
    """Point stdout at /dev/null so that the interpreter's final flush cannot complain again."""
    if isinstance(sys.stdout, ClosedOutput):  # it keeps nothing to flush
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
