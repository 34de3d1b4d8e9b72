"""Copies a release's image files into its staging folder in a process of its own.

The dataset builder is Python that holds the interpreter's lock nearly all the time; a thread
copying files beside it waits for that lock between every read and write, so copying in
threads barely overlaps building (measured: 0.43 s of copying alone took 0.98 s beside a busy
thread). A separate process copies on the other core. `writer.Staging` starts it; it runs
this file by path (`python -I -S copier.py`), so it imports nothing but the standard library
and never Django.

Protocol: stdin is one JSON object `{"root": folder, "files": [[relative, source], …]}`, read
whole before any copying. While copying, stdout gets a line `P <done> <total>` about every
hundredth file (a few bytes: the parent reads them only when it waits, and a pipe holds 64
KiB). Last comes one line of JSON: `{"files": {relative: [sha256, bytes]}, "errors": {relative:
message}}`. The exit status is 0 whenever that line was written.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

CHUNK = 1 << 20
PROGRESS_LINES = 100


def copy(target: Path, source: str | Path) -> tuple[str, int]:
    """Copy `source` to `target`, streamed (images can be large); its SHA-256 and size. The
    writer copies with this too when it copies in-process."""
    digest = hashlib.sha256()
    size = 0
    with open(source, "rb") as reader, open(target, "wb") as writer:
        while chunk := reader.read(CHUNK):
            writer.write(chunk)
            digest.update(chunk)
            size += len(chunk)
    return digest.hexdigest(), size


def main() -> int:
    order = json.loads(sys.stdin.buffer.read())
    root = Path(order["root"])
    files = [(str(relative), str(source)) for relative, source in order["files"]]
    every = max(1, len(files) // PROGRESS_LINES)
    done: dict[str, list] = {}
    errors: dict[str, str] = {}

    # One file at a time: copying threads here were no faster and slowed the builder on the
    # other core (four: by 0.5 s at 3,000 claims).
    for count, (relative, source) in enumerate(files, start=1):
        try:
            done[relative] = list(copy(root / relative, source))
        except OSError as exc:
            errors[relative] = f"{type(exc).__name__}: {exc.strerror or exc} ({source})"
        if count % every == 0 or count == len(files):
            sys.stdout.write(f"P {count} {len(files)}\n")
            sys.stdout.flush()
    sys.stdout.write(json.dumps({"files": done, "errors": errors}) + "\n")
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
