"""Release export: records (dataset) → formats (formatters) → writer (atomic release folder);
`reading` is SciVer's own reading of a release, `sections` the paper-file section ids."""

from validation.release.formats import jsonl_record, sciver_paper, sciver_record
from validation.release.records import (
    EvidencePiece,
    PaperSection,
    ReleaseClaim,
    ReleasePaper,
    VisualElement,
    image_name,
    pseudonymise,
    release_paperids,
)
from validation.release.writer import (
    FORMAT_VERSION,
    Release,
    ReleaseError,
    Staging,
    check_out,
    is_release_folder,
    labels_path,
    write_release,
)

__all__ = [
    "FORMAT_VERSION",
    "EvidencePiece",
    "PaperSection",
    "Release",
    "ReleaseClaim",
    "ReleaseError",
    "ReleasePaper",
    "Staging",
    "VisualElement",
    "check_out",
    "image_name",
    "is_release_folder",
    "jsonl_record",
    "labels_path",
    "pseudonymise",
    "release_paperids",
    "sciver_paper",
    "sciver_record",
    "write_release",
]
