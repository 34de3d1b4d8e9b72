"""Text as the parser hands it on: whitespace collapsed, no control characters."""

from __future__ import annotations

import re

# C0 and C1 controls but tab and newline, lone surrogates and the two non-characters XML
# refuses: a page may carry them (`&#1;`, raw bytes), a database or lxml may not.
CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff]")
# The same for bytes before they are parsed, mapped to spaces: a control byte in a tag or
# attribute name makes lxml refuse the name, and byte offsets stay those of the page.
_CONTROL_BYTES = bytes([*range(0x00, 0x09), 0x0B, 0x0C, *range(0x0E, 0x20), 0x7F])
_BYTES_TO_SPACE = bytes.maketrans(_CONTROL_BYTES, b" " * len(_CONTROL_BYTES))


def strip_control(text: str) -> str:
    """`text` without control characters (tab and newline are kept)."""
    return CONTROL.sub("", text)


def collapse(text: str) -> str:
    """Whitespace collapsed to single spaces."""
    return " ".join(text.split())


def clean_line(text: str) -> str:
    """Collapsed text with its control characters out (and the whitespace they leave)."""
    return " ".join(CONTROL.sub("", text).split()) if CONTROL.search(text) else text


# A control character reaches a parsed tree only through a character reference once the raw
# control bytes are spaces (control_bytes_to_spaces): a page without any (LaTeXML writes
# none) needs no cleaning at all.
CHARACTER_REFERENCE = re.compile(rb"&#[xX]?[0-9a-fA-F]")


def control_bytes_to_spaces(data: bytes) -> bytes:
    """ASCII control bytes (not tab, LF, CR) as spaces: never part of UTF-8 multi-byte
    characters, and no valid HTML holds them."""
    return data.translate(_BYTES_TO_SPACE)
