"""How far nbtext's settings may go, and why: past these the maths, or the machine, no longer holds.

Each bound is checked where a value comes in (the command line, a grid, the readers), with the
range in the message; the library below trusts them.
"""

from __future__ import annotations

#: The most additive smoothing. Past it the smoothed totals of 2**32 hashed features come near
#: the largest float, and a count of 1 is lost beside them in rounding: every document would
#: get the class priors. (``--alpha 1e308`` gave NaN probabilities.)
MAX_ALPHA = 1e9

#: The most processes one command starts (``--jobs``, a local Dask cluster's workers): more only
#: wait for the cores, each with its own memory, and a slip of the keyboard must not start
#: thousands.
MAX_PROCESSES = 256

#: The most one document may be, unless the caller says otherwise: a file, a line, a mail
#: message, a record. Past it a document is skipped and counted, no more of it read than that,
#: so that memory stays bounded whatever the input (/dev/zero, an endless line on stdin, a
#: compressed file that unpacks to terabytes). A mail message with its attachments seldom
#: passes 35 MB: mail servers refuse 25 MB of attachments, 33 MB in base64.
MAX_DOCUMENT_BYTES = 64 << 20
