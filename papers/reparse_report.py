"""What a re-parse of a stored page found and did (in a dry run: would do), element by
element, and how it reads for a person."""

from __future__ import annotations

from dataclasses import dataclass, field

from papers.models import Paper


@dataclass
class ElementChange:
    """An element a re-parse adds, changes or removes; `cited_by` is the work that cites it."""

    anchor: str
    label: str = ""
    kind: str = ""
    fields: list[str] = field(default_factory=list)  # what differs ("number", "caption", …)
    cited_by: list[str] = field(default_factory=list)

    def describe(self) -> str:
        text = f"{self.label} ({self.anchor})" if self.label else self.anchor
        if self.fields:
            text += f": {', '.join(self.fields)}"
        if self.cited_by:
            shown = ", ".join(self.cited_by[:5])
            more = f" and {len(self.cited_by) - 5} more" if len(self.cited_by) > 5 else ""
            text += f"; cited by {shown}{more}"
        return text


@dataclass
class ReparseReport:
    """What a re-parse of a stored page found and did (in a dry run: would do)."""

    paper: Paper
    dry_run: bool
    added: list[ElementChange] = field(default_factory=list)
    changed: list[ElementChange] = field(default_factory=list)
    removed: list[ElementChange] = field(default_factory=list)
    # Differences left alone because work cites the element or section: for an admin.
    protected: list[ElementChange] = field(default_factory=list)
    sections_added: list[str] = field(default_factory=list)
    sections_changed: list[str] = field(default_factory=list)
    sections_removed: list[str] = field(default_factory=list)
    lost_before: int = 0
    lost_after: int = 0
    warnings: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    vectors: list[str] = field(default_factory=list)  # charts whose SVG file was fetched
    status_before: str = ""
    status_after: str = ""
    work_exists: bool = False
    # What each changed section changed: anchor -> "kind body -> appendix"
    section_diffs: dict[str, str] = field(default_factory=dict)
    generator_before: str = ""
    generator_after: str = ""

    @property
    def unchanged(self) -> bool:
        return not (
            self.added
            or self.changed
            or self.removed
            or self.sections_added
            or self.sections_changed
            or self.sections_removed
        )

    def lines(self) -> list[str]:
        """The report as a person reads it: a summary line, then a line per table or chart
        (paragraphs counted), per difference left alone, per warning."""
        would = self.dry_run
        head = (
            f"{self.paper.versioned_id} (paper #{self.paper.pk}): "
            f"{'would add' if would else 'added'} {len(self.added)}, "
            f"{'would change' if would else 'changed'} {len(self.changed)}, "
            f"{'would remove' if would else 'removed'} {len(self.removed)} elements; "
            f"sections +{len(self.sections_added)} ~{len(self.sections_changed)} "
            f"-{len(self.sections_removed)}; {len(self.protected)} left alone (cited by work); "
            f"numbered floats not kept {self.lost_before} -> {self.lost_after}"
        )
        if self.status_after != self.status_before:
            head += f"; status {self.status_before} -> {self.status_after}"
        if self.unchanged and not self.protected:
            head += "; the stored context is already what the parser reads"
        if would:
            head += " [dry run: nothing written]"
        lines = [head]
        for sign, changes in (("+", self.added), ("~", self.changed), ("-", self.removed)):
            paragraphs = [c for c in changes if c.kind == "paragraph"]
            lines += [f"  {sign} {c.describe()}" for c in changes if c.kind != "paragraph"]
            if paragraphs:
                span = paragraphs[0].anchor
                if len(paragraphs) > 1:
                    span += f" … {paragraphs[-1].anchor}"
                lines.append(f"  {sign} {len(paragraphs)} paragraphs ({span})")
        lines += [f"  ! left as stored, for an admin: {c.describe()}" for c in self.protected]
        for sign, anchors in (
            ("+", self.sections_added),
            ("~", self.sections_changed),
            ("-", self.sections_removed),
        ):
            if anchors:
                shown = [
                    f"{a} ({self.section_diffs[a]})" if a in self.section_diffs else a
                    for a in anchors
                ]
                lines.append(f"  {sign} sections: {', '.join(shown)}")
        if self.generator_after != self.generator_before:
            before = self.generator_before or "none read"
            lines.append(f"  generator: {before} -> {self.generator_after or 'none read'}")
        if self.added and self.work_exists:
            lines.append(
                "  note: the added elements are in no existing curated context; a curator "
                "includes them by saving a new context version"
            )
        if self.vectors:
            lines.append(
                f"  vector graphics fetched and made inert, to be drawn: {', '.join(self.vectors)}"
            )
        lines += [f"  warning: {w}" for w in self.warnings]
        lines += [f"  problem: {p}" for p in self.problems]
        return lines
