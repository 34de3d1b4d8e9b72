"""Every CSV the application writes, through one writer that neutralises formulas.

A spreadsheet runs a cell that begins with `=`, `+`, `-` or `@` as a formula (and a tab or a
carriage return can hide one): a model's answer `=HYPERLINK("http://…?x="&A1,"entailed")`, a
username `@SUM(…)` or a claim would run when an admin opens the download. Such a text cell is
written with a leading apostrophe, as OWASP advises (the spreadsheet shows the text, not its
result); numbers stay numbers. The JSON and JSON Lines files hold every text as it was written.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from django.http import HttpResponse

FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def neutral(value: Any) -> Any:
    """The cell as a spreadsheet may read it: a text that would start a formula, prefixed
    with an apostrophe; anything else as it is."""
    if isinstance(value, str) and value.startswith(FORMULA_START):
        return "'" + value
    return value


def csv_text(header: Sequence[str], rows: Iterable[Sequence[Any] | Mapping[str, Any]]) -> str:
    """A CSV document: the header, then each row (a sequence, or a mapping read by the
    header's names), every cell neutralised."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow([neutral(name) for name in header])
    for row in rows:
        cells = [row.get(name, "") for name in header] if isinstance(row, Mapping) else row
        writer.writerow([neutral(cell) for cell in cells])
    return buffer.getvalue()


def csv_download(
    filename: str, header: Sequence[str], rows: Iterable[Sequence[Any] | Mapping[str, Any]]
) -> HttpResponse:
    """A CSV file to download (`attachment`), written by `csv_text`."""
    response = HttpResponse(csv_text(header, rows), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response
