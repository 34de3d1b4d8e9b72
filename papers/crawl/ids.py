"""Lists of arXiv ids, as admins bring them: read, checked and named line by line.

Two id schemes (arXiv's "Understanding the arXiv identifier"):
- since April 2007, `YYMM.NNNN` (to 2014) or `YYMM.NNNNN` (from 2015), e.g. `2410.00260`;
- before, `archive[.SC]/YYMMNNN`, e.g. `cs/0112017` or `math.AG/0601001`.
Either may end in a version (`v2`). Pasted forms are read too: `arXiv:2410.00260` and the
addresses of an abstract, PDF or HTML page (`https://arxiv.org/abs/2410.00260v2`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

MAX_IDS = 5000  # one run; a longer list is several runs
ID_BATCH = 50  # listed ids looked up in one API request (with their latest versions: 100)

_NEW = re.compile(r"(?P<yy>\d{2})(?P<mm>\d{2})\.(?P<number>\d+)(?:v(?P<version>\d+))?")
_OLD = re.compile(
    r"(?P<archive>[a-z]+(?:-[a-z]+)*(?:\.[A-Z]{2})?)/(?P<yy>\d{2})(?P<mm>\d{2})(?P<number>\d{3})"
    r"(?:v(?P<version>\d+))?"
)
_PREFIX = re.compile(
    r"^(?:arxiv:|https?://(?:www\.|export\.)?arxiv\.org/(?:abs|pdf|html)/)", re.IGNORECASE
)


@dataclass(frozen=True)
class ListedId:
    line: int  # 1-based, in the list as given
    arxiv_id: str  # without version: "2410.00260", "cs/0112017"
    version: int | None  # None: the latest

    @property
    def requested(self) -> str:
        return self.arxiv_id if self.version is None else f"{self.arxiv_id}v{self.version}"


class IdListError(ValueError):
    """The list holds entries that are not arXiv ids; `problems` names each with its line."""

    def __init__(self, problems: list[str]):
        super().__init__("; ".join(problems))
        self.problems = problems


def id_problem(text: str) -> str:
    """Why `text` (stripped, prefix removed) is not an arXiv id; "" when it is one."""
    new = _NEW.fullmatch(text)
    if new:
        yy, mm, number = int(new["yy"]), int(new["mm"]), new["number"]
        if not 1 <= mm <= 12:
            return f"month {new['mm']} does not exist (YYMM.NNNNN)"
        if (yy, mm) < (7, 4):
            return "new-style ids start in April 2007 (0704); older papers have ids like cs/0112017"
        digits = 5 if yy >= 15 else 4
        if len(number) != digits:
            return (
                f"ids of 20{yy:02d} have {digits} digits after the dot"
                f" ({new['yy']}{new['mm']}.{'N' * digits}), this one has {len(number)}"
            )
        if new["version"] is not None and int(new["version"]) < 1:
            return "versions start at v1"
        return ""
    old = _OLD.fullmatch(text)
    if old:
        yy, mm = int(old["yy"]), int(old["mm"])
        if not 1 <= mm <= 12:
            return f"month {old['mm']} does not exist (archive/YYMMNNN)"
        if 8 <= yy <= 90 or (yy == 7 and mm > 3):
            return "old-style ids end in March 2007; later papers have ids like 2410.00260"
        if old["version"] is not None and int(old["version"]) < 1:
            return "versions start at v1"
        return ""
    return "not an arXiv id (e.g. 2410.00260, 2409.13817v2 or cs/0112017)"


def read_id(text: str) -> tuple[str, int | None]:
    """("2410.00260", 2) from "2410.00260v2" (or its pasted forms); ValueError if it is none."""
    core = _PREFIX.sub("", text.strip()).rstrip("/")
    if core.lower().startswith(("abs/", "pdf/", "html/")):
        core = core.split("/", 1)[1]
    if core.endswith(".pdf"):
        core = core[: -len(".pdf")]
    problem = id_problem(core)
    if problem:
        raise ValueError(problem)
    match = _NEW.fullmatch(core) or _OLD.fullmatch(core)
    assert match is not None
    version = match["version"]
    base = core[: match.start("version") - 1] if version is not None else core
    return base, (int(version) if version is not None else None)


def _read(entries: list[tuple[int, str]], what: str) -> list[ListedId]:
    listed: list[ListedId] = []
    problems: list[str] = []
    for number, raw in entries:
        stripped = raw.strip()
        if stripped.startswith("#"):
            continue  # a comment line
        text = stripped.split("#", 1)[0].strip()
        if not text:
            said = "only spaces" if raw else "empty"
            problems.append(f"{what} {number}: {said}, no id")
            continue
        try:
            arxiv_id, version = read_id(text)
        except ValueError as exc:
            shown = text if len(text) <= 60 else text[:57] + "…"
            problems.append(f"{what} {number}: {shown!r}: {exc}")
            continue
        listed.append(ListedId(line=number, arxiv_id=arxiv_id, version=version))
    if problems:
        raise IdListError(problems)
    if not listed:
        raise IdListError(["the list holds no id"])
    if len(listed) > MAX_IDS:
        raise IdListError([f"{len(listed)} ids: at most {MAX_IDS:,} a run (split the list)"])
    return listed


def read_id_lines(text: str) -> list[ListedId]:
    """A file's or a text box's ids: one a line, `#` starts a comment, empty lines are skipped
    (a line of spaces is refused: it is where an id was meant to be). IdListError names every
    line that is not an id, before anything is fetched."""
    lines = text.splitlines()
    entries = [(n, line) for n, line in enumerate(lines, start=1) if line != ""]
    return _read(entries, "line")


def read_id_option(value: str) -> list[ListedId]:
    """`--ids 2410.00260,2409.13817v2`: comma-separated; an empty entry is refused."""
    return _read(list(enumerate(value.split(","), start=1)), "entry")


def id_batches(lines: list[int]) -> list[tuple[str, list[int]]]:
    """The listed lines (duplicates left out) in batches of ID_BATCH, each keyed by its first
    and last line: a resumed run looks up only the batches not done."""
    ordered = sorted(lines)
    batches = [ordered[i : i + ID_BATCH] for i in range(0, len(ordered), ID_BATCH)]
    return [(f"ids:{batch[0]}-{batch[-1]}", batch) for batch in batches]
