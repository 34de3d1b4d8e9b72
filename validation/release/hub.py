"""A release as the Hugging Face Hub and Croissant read it: the dataset card's YAML front matter
(licence, tasks, size, and the configuration `datasets.load_dataset` reads, with explicit
features), the card's section on loading it, Parquet files with the tables and charts embedded
as images (optional: pyarrow, the `[hub]` extra), `croissant.json`, and `hub_problems`, which
checks that all of them hold the records of valset.json and testset.json."""

from __future__ import annotations

import csv
import hashlib
import io
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from papers.licences import licence_code
from validation.release.formats import (
    HIDDEN_FIELDS,
    HIDDEN_JSONL_FIELDS,
    SCIVER_FIELDS,
    SCIVER_ROOT,
    SPLIT_FILES,
)

__all__ = [
    "CROISSANT_FILE",
    "HUB_INSTALL",
    "IMAGES_COLUMN",
    "LICENCE_HEADING",
    "PARQUET_FILES",
    "croissant",
    "croissant_bytes",
    "front_matter",
    "hub_licence",
    "hub_problems",
    "loading_section",
    "missing_pyarrow",
    "size_category",
    "write_parquet",
]

CROISSANT_FILE = "croissant.json"
# One Parquet file per part, beside our JSON Lines; with them, the card's configuration reads
# these instead of valset.json and testset.json (the Hub reads any layout its YAML names).
PARQUET_FILES = {
    "validation": "data/parquet/validation.parquet",
    "test": "data/parquet/test.parquet",
}
IMAGES_COLUMN = "images"  # the Parquet records' tables/charts, as `datasets` Image features
ROWS_PER_GROUP = 100  # Parquet row groups: the Hub's viewer reads image datasets by row group
HUB_INSTALL = "pip install -e '.[hub]'"
# The dataset card's section listing every paper under its licence; `license_link` points to
# its anchor when the papers' licences differ.
LICENCE_HEADING = "Papers and their licences"
ANNOTATIONS_LICENCE = "cc-by-4.0"  # the annotations' licence (the card's "Licence")
ANNOTATIONS_LICENCE_URL = "https://creativecommons.org/licenses/by/4.0/"
# The licences the Hub knows by id (https://huggingface.co/docs/hub/repositories-licenses)
# among those arXiv papers come with.
HUB_LICENCES = frozenset(
    {
        "cc0-1.0",
        "cc-by-2.0",
        "cc-by-2.5",
        "cc-by-3.0",
        "cc-by-4.0",
        "cc-by-sa-3.0",
        "cc-by-sa-4.0",
        "cc-by-nc-2.0",
        "cc-by-nc-3.0",
        "cc-by-nc-4.0",
        "cc-by-nd-4.0",
        "cc-by-nc-nd-3.0",
        "cc-by-nc-nd-4.0",
        "cc-by-nc-sa-2.0",
        "cc-by-nc-sa-3.0",
        "cc-by-nc-sa-4.0",
    }
)
# The Hub's size buckets, by number of records (claims in all parts).
SIZE_CATEGORIES = (
    (1_000, "n<1K"),
    (10_000, "1K<n<10K"),
    (100_000, "10K<n<100K"),
    (1_000_000, "100K<n<1M"),
    (10_000_000, "1M<n<10M"),
)
SCIVER_CITATION = """@article{wang2025sciver,
  title = {SciVer: Evaluating Foundation Models for Multimodal Scientific Claim Verification},
  author = {Wang, Chengye and Shen, Yifei and Kuang, Zexi and Cohan, Arman and Zhao, Yilun},
  journal = {arXiv preprint arXiv:2506.15569},
  year = {2025}
}"""
TOOL_CITATION = """@software{sciver_studio,
  title = {SciVer Studio: expert-annotated datasets for multimodal scientific claim
           verification, built with the SciVer protocol},
  note = {The software that built this release}
}"""
CROISSANT_CONFORMS_TO = "http://mlcommons.org/croissant/1.0"
# Croissant 1.0's JSON-LD context, as its specification and mlcroissant write it.
CROISSANT_CONTEXT = {
    "@language": "en",
    "@vocab": "https://schema.org/",
    "citeAs": "cr:citeAs",
    "column": "cr:column",
    "conformsTo": "dct:conformsTo",
    "cr": "http://mlcommons.org/croissant/",
    "rai": "http://mlcommons.org/croissant/RAI/",
    "data": {"@id": "cr:data", "@type": "@json"},
    "dataType": {"@id": "cr:dataType", "@type": "@vocab"},
    "dct": "http://purl.org/dc/terms/",
    "equivalentProperty": "cr:equivalentProperty",
    "examples": {"@id": "cr:examples", "@type": "@json"},
    "extract": "cr:extract",
    "field": "cr:field",
    "fileProperty": "cr:fileProperty",
    "fileObject": "cr:fileObject",
    "fileSet": "cr:fileSet",
    "format": "cr:format",
    "includes": "cr:includes",
    "isLiveDataset": "cr:isLiveDataset",
    "jsonPath": "cr:jsonPath",
    "key": "cr:key",
    "md5": "cr:md5",
    "parentField": "cr:parentField",
    "path": "cr:path",
    "recordSet": "cr:recordSet",
    "references": "cr:references",
    "regex": "cr:regex",
    "repeated": "cr:repeated",
    "replace": "cr:replace",
    "samplingRate": "cr:samplingRate",
    "sc": "https://schema.org/",
    "separator": "cr:separator",
    "source": "cr:source",
    "subField": "cr:subField",
    "transform": "cr:transform",
}
# A field's type (formats.SCIVER_FIELDS) as the card's features, Croissant and `datasets`
# (in a Parquet file's metadata) name it.
YAML_TYPES = {"int": "int64", "str": "string", "bool": "bool"}
CROISSANT_TYPES = {
    "int": "sc:Integer",
    "str": "sc:Text",
    "bool": "sc:Boolean",
    "list[str]": "sc:Text",
}
IMAGE_FIELDS = ("image_path", "item1_path", "item2_path")  # a record's images, in this order
PROBLEMS_SHOWN = 20  # per file: the first mismatches, then a count


# --- The dataset card -------------------------------------------------------------------------


def hub_licence_id(licence: str) -> str | None:
    """A paper's licence (its URL, or a name) as the Hub's licence id (`cc-by-4.0`), with the
    version the licence names (CC0 1.0 and CC 4.0 when it names none); None for a licence the
    Hub has no id for (arXiv's own, an unknown one)."""
    code = licence_code(licence)
    if code != "cc0" and not code.startswith("cc-by"):
        return None
    version = re.search(r"(\d+\.\d+)", licence)
    number = version.group(1) if version else ("1.0" if code == "cc0" else "4.0")
    found = f"{code}-{number}"
    return found if found in HUB_LICENCES else None


def hub_licence(licences: Iterable[str]) -> dict[str, Any]:
    """The card's `license` entries for papers under `licences` (a licence per paper).

    When every paper has one licence the Hub knows, that id, beside the annotations' CC BY 4.0
    when it is another one (a list: both apply to the folder); else `other`, named, linking to
    the card's table of every paper and its licence."""
    ids = {hub_licence_id(licence) for licence in licences}
    if len(ids) == 1 and None not in ids:
        (paper,) = ids
        assert paper is not None  # for mypy: None was excluded above
        return {"license": paper if paper == ANNOTATIONS_LICENCE else [ANNOTATIONS_LICENCE, paper]}
    return {
        "license": "other",
        "license_name": "per-paper-licences",
        "license_link": f"README.md#{heading_anchor(LICENCE_HEADING)}",
    }


def heading_anchor(heading: str) -> str:
    """A Markdown heading's anchor as GitHub and the Hub make it."""
    return re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")


def size_category(records: int) -> str:
    for limit, name in SIZE_CATEGORIES:
        if records < limit:
            return name
    return "n>10M"


def features(*, images: bool) -> list[dict[str, Any]]:
    """The card's `features` of a configuration, one set for every part (`datasets` casts each
    part to them): every SciVer field a record may hold, so that a field a record lacks (the
    other claim types' element fields, hidden labels) loads as None; without them, parts whose
    records differ in fields do not load at all."""
    found: list[dict[str, Any]] = []
    for name, kind in SCIVER_FIELDS:
        if kind == "list[str]":
            found.append({"name": name, "list": "string"})
        else:
            found.append({"name": name, "dtype": YAML_TYPES[kind]})
    if images:
        found.append({"name": IMAGES_COLUMN, "list": "image"})
    return found


def front_matter(
    *, name: str, counts: Mapping[str, int], licences: Iterable[str], parquet: bool
) -> str:
    """The dataset card's YAML front matter (README.md starts with it): what the Hub shows and
    searches (licence, tasks, language, size), and the configuration `load_dataset` reads:
    SciVer's valset.json and testset.json, or with `parquet` the Parquet files (the same
    records, with the images embedded). `datasets` takes one builder per repository, from the
    first configuration's files, so one card cannot offer both as configurations. `counts`
    are each part's records (a part without records is left out). The features are explicit:
    without them, `datasets` cannot load parts whose records differ in fields. No split sizes:
    `datasets` reads them only beside `num_bytes`, its own Arrow size of each part, which
    nothing here can know; croissant.json declares the counts."""
    parts = [part for part in SPLIT_FILES if counts.get(part)]
    files = PARQUET_FILES if parquet else {p: SPLIT_FILES[p][0] for p in parts}
    metadata: dict[str, Any] = {
        "pretty_name": f"SciVer-style dataset, split {name}",
        **hub_licence(licences),
        "language": ["en"],
        "task_categories": ["text-classification", "visual-question-answering"],
        "task_ids": ["fact-checking"],
        "size_categories": [size_category(sum(counts.values()))],
        "annotations_creators": ["expert-generated"],
        "source_datasets": ["original"],
        "tags": ["scientific-claim-verification", "multimodal", "sciver", "croissant"],
        "configs": [
            {
                "config_name": "default",
                "data_files": [{"split": p, "path": files[p]} for p in parts],
            }
        ],
        "dataset_info": {"config_name": "default", "features": features(images=parquet)},
    }
    return "---\n" + "\n".join(_yaml(metadata)) + "\n---\n\n"


def _yaml(value: Any, indent: str = "") -> list[str]:
    """Block YAML of dicts, lists and scalars; strings and numbers are written as JSON
    scalars, which YAML reads as they are (no `yes`/`no`/`1e3` surprises)."""
    lines: list[str] = []
    if isinstance(value, dict):
        for key, item in value.items():
            if isinstance(item, dict | list) and item:
                lines.append(f"{indent}{key}:")
                lines += _yaml(item, indent + ("" if isinstance(item, list) else "  "))
            else:
                lines.append(f"{indent}{key}: {_scalar(item)}")
        return lines
    for item in value:
        if isinstance(item, dict):
            inner = _yaml(item, indent + "  ")
            lines.append(f"{indent}- {inner[0].lstrip()}")
            lines += inner[1:]
        else:
            lines.append(f"{indent}- {_scalar(item)}")
    return lines


def _scalar(value: Any) -> str:
    if (
        isinstance(value, str)
        and re.fullmatch(r"[a-z][a-z0-9_.-]*", value)
        and value
        not in (
            "yes",
            "no",
            "on",
            "off",
            "true",
            "false",
            "null",
        )
    ):
        return value  # ids and paths as people write them
    return json.dumps(value, ensure_ascii=False)


def loading_section(*, counts: Mapping[str, int], parquet: bool, hidden: bool) -> str:
    """The card's section on loading the release: `datasets` (the SciVer files, or the
    Parquet files with the images), the paper files, Croissant, and how to cite it."""
    parts = " and ".join(f"`{p}` ({counts[p]:,} records)" for p in SPLIT_FILES if counts.get(p))
    missing = (
        "`item1…`/`item2…` on a direct or analytical claim, `type`/`item`/`image_path` on a "
        "parallel or sequential one"
    )
    if hidden:
        missing += "; `label` and the statements on every test record: they are hidden"
    if parquet:
        read = (
            f"read from `{PARQUET_FILES['validation']}` and `{PARQUET_FILES['test']}`: the records "
            "of `valset.json` and `testset.json`, each with its tables and charts embedded "
            f"(`{IMAGES_COLUMN}`, a list of images that `datasets` decodes as PIL images, in the "
            "order `image_path`, or `item1_path` then `item2_path`)"
        )
    else:
        read = "read from `valset.json` and `testset.json`"
    lines = [
        "## Loading",
        "",
        'With the `datasets` library, from the Hub (or from this folder: `load_dataset("DIR/SciVer")`):',
        "",
        "```python",
        "from datasets import load_dataset",
        "",
        'sciver = load_dataset("<user>/<name>")',
        'sciver["validation"][0]["claim"]',
        "```",
        "",
        f"gives {parts} with SciVer's own fields, {read}. A field a record does not have is "
        f"`None` ({missing}). Image paths are relative to the folder's parent "
        "(`./SciVer/images/…`, as in SciVer's release) and the context is in the paper files "
        "(`papers/<paperid>.json`): to read them as SciVer's code does, download the folder "
        "(`hf download <user>/<name> --repo-type dataset --local-dir SciVer`).",
        "",
    ]
    if parquet:
        lines += [
            "SciVer's JSON files alone, without the images: "
            '`load_dataset("<user>/<name>", data_files={"validation": "valset.json", '
            '"test": "testset.json"})`.',
            "",
        ]
    lines += [
        f"`{CROISSANT_FILE}` describes the files and records in Croissant 1.0 "
        f'(`mlcroissant.Dataset(jsonld="{CROISSANT_FILE}")`; record sets `validation`, `test` '
        "and `images`). Our fuller records, with each claim's evidence, are "
        "`data/validation.jsonl`, `data/test.jsonl` and their CSVs; `manifest.json` gives "
        "every file's SHA-256.",
        "",
        "## Citation",
        "",
        "```bibtex",
        SCIVER_CITATION,
        "",
        TOOL_CITATION,
        "```",
        "",
    ]
    return "\n".join(lines)


# --- Croissant --------------------------------------------------------------------------------


def part_fields(part: str, *, hidden: bool) -> list[tuple[str, str]]:
    """The SciVer fields of a part's records: all of them but the hidden ones of a hidden test
    part (a record holds its claim type's element fields only)."""
    gone = set(HIDDEN_FIELDS) if hidden and part == "test" else set()
    return [(name, kind) for name, kind in SCIVER_FIELDS if name not in gone]


def croissant(
    *,
    name: str,
    description: str,
    parts: Mapping[str, tuple[bytes, int]],
    licences: Iterable[str],
    hidden: bool,
) -> dict[str, Any]:
    """The release's Croissant 1.0 description: its files (valset.json and testset.json with
    their SHA-256, the paper files and images as file sets), a record set per part whose
    fields are extracted from the SciVer file (`$[*]`, then each field by name, so that a
    field a record lacks is None) and one of the images. `parts`: part → (its SciVer file's
    bytes, its number of records)."""
    distribution: list[dict[str, Any]] = []
    record_sets: list[dict[str, Any]] = []
    for part, (content, count) in parts.items():
        file = SPLIT_FILES[part][0]
        distribution.append(
            {
                "@type": "cr:FileObject",
                "@id": file,
                "name": file,
                "description": f"SciVer's {part} records, as a JSON list",
                "contentUrl": file,
                "encodingFormat": "application/json",
                "sha256": hashlib.sha256(content).hexdigest(),
            }
        )
        record_sets.append(
            {
                "@type": "cr:RecordSet",
                "@id": part,
                "name": part,
                "description": f"The {count:,} records of {file}"
                + (" (test labels hidden)" if hidden and part == "test" else ""),
                # Croissant has no property for a record set's size; schema.org's is read back
                # by `hub_problems`.
                "numberOfItems": count,
                "key": {"@id": f"{part}/request_id"},
                "field": [
                    _field(part, file, n, kind) for n, kind in part_fields(part, hidden=hidden)
                ],
            }
        )
    distribution += [
        {
            "@type": "cr:FileSet",
            "@id": "paper-files",
            "name": "paper-files",
            "description": "Each paper's curated context: sections, chart and table captions",
            "encodingFormat": "application/json",
            "includes": "papers/*.json",
        },
        {
            "@type": "cr:FileSet",
            "@id": "image-files",
            "name": "image-files",
            "description": "The tables (screenshots) and charts the records name",
            "encodingFormat": "image/png",
            "includes": "images/*.png",
        },
    ]
    record_sets.append(
        {
            "@type": "cr:RecordSet",
            "@id": "images",
            "name": "images",
            "description": "The tables and charts, by file name (a record's image_path ends in it)",
            "field": [
                {
                    "@type": "cr:Field",
                    "@id": "images/file_name",
                    "name": "file_name",
                    "dataType": "sc:Text",
                    "source": {
                        "fileSet": {"@id": "image-files"},
                        "extract": {"fileProperty": "filename"},
                    },
                },
                {
                    "@type": "cr:Field",
                    "@id": "images/image",
                    "name": "image",
                    "dataType": "sc:ImageObject",
                    "source": {
                        "fileSet": {"@id": "image-files"},
                        "extract": {"fileProperty": "content"},
                    },
                },
            ],
        }
    )
    urls = [ANNOTATIONS_LICENCE_URL] + sorted(set(licences) - {ANNOTATIONS_LICENCE_URL})
    return {
        "@context": CROISSANT_CONTEXT,
        "@type": "sc:Dataset",
        "name": name,
        "description": description,
        "conformsTo": CROISSANT_CONFORMS_TO,
        "citeAs": SCIVER_CITATION + "\n\n" + TOOL_CITATION,
        "license": urls,
        "keywords": ["scientific claim verification", "multimodal", "SciVer"],
        "distribution": distribution,
        "recordSet": record_sets,
    }


def croissant_bytes(document: Mapping[str, Any]) -> bytes:
    return (json.dumps(document, ensure_ascii=False, indent=2) + "\n").encode("utf-8")


def _field(part: str, file: str, name: str, kind: str) -> dict[str, Any]:
    field: dict[str, Any] = {
        "@type": "cr:Field",
        "@id": f"{part}/{name}",
        "name": name,
        "dataType": CROISSANT_TYPES[kind],
        "source": {
            "fileObject": {"@id": file},
            "extract": {"jsonPath": "$[*]"},
            "transform": {"jsonPath": name},
        },
    }
    if kind == "list[str]":
        field["repeated"] = True
    return field


# --- Parquet ----------------------------------------------------------------------------------


def missing_pyarrow() -> str | None:
    """What to install when pyarrow, which writes the Parquet files, is missing; else None."""
    try:
        import pyarrow  # noqa: F401, PLC0415 - an optional extra, asked for by --parquet only
    except ImportError:
        return (
            f"--parquet needs pyarrow, which is not installed: {HUB_INSTALL} (the `hub` extra), "
            "then export again; nothing was written"
        )
    return None


def _arrow_schema() -> Any:
    """The Parquet files' schema: SciVer's fields (None where a record lacks one) and the
    images, as `datasets` stores Image features (struct of bytes and path), with the feature
    metadata `datasets` reads back (so that it decodes them as images)."""
    import pyarrow as pa  # noqa: PLC0415 - optional extra ([hub])

    types = {
        "int": pa.int64(),
        "str": pa.string(),
        "bool": pa.bool_(),
        "list[str]": pa.list_(pa.string()),
    }
    image = pa.struct([("bytes", pa.binary()), ("path", pa.string())])
    schema = pa.schema(
        [(name, types[kind]) for name, kind in SCIVER_FIELDS] + [(IMAGES_COLUMN, pa.list_(image))]
    )
    features: dict[str, Any] = {}
    for name, kind in SCIVER_FIELDS:
        if kind == "list[str]":
            # A one-item list is a list feature in every `datasets` version (`List` is new in 4).
            features[name] = [{"dtype": "string", "_type": "Value"}]
        else:
            features[name] = {"dtype": YAML_TYPES[kind], "_type": "Value"}
    features[IMAGES_COLUMN] = [{"_type": "Image"}]
    return schema.with_metadata({"huggingface": json.dumps({"info": {"features": features}})})


def image_paths(record: Mapping[str, Any]) -> list[str]:
    """A SciVer record's images as release paths (`images/…png`), in the record's order."""
    prefix = SCIVER_ROOT + "/"
    paths = [record[key] for key in IMAGE_FIELDS if isinstance(record.get(key), str)]
    return [p[len(prefix) :] if p.startswith(prefix) else p for p in paths]


def write_parquet(
    target: Path, records: Sequence[Mapping[str, Any]], images: Mapping[str, bytes | Path]
) -> None:
    """A part's SciVer records to `target`, each with its images' bytes (from `images`,
    release path → bytes or file), row group by row group (never the whole part in memory)."""
    import pyarrow as pa  # noqa: PLC0415 - optional extra ([hub])
    import pyarrow.parquet as pq  # noqa: PLC0415 - optional extra ([hub])

    schema = _arrow_schema()
    with pq.ParquetWriter(str(target), schema) as writer:
        for start in range(0, len(records), ROWS_PER_GROUP):
            group = records[start : start + ROWS_PER_GROUP]
            columns: dict[str, list[Any]] = {
                name: [record.get(name) for record in group] for name, _ in SCIVER_FIELDS
            }
            columns[IMAGES_COLUMN] = [
                [
                    {"bytes": _image_bytes(images[path]), "path": Path(path).name}
                    for path in image_paths(record)
                ]
                for record in group
            ]
            writer.write_table(pa.Table.from_pydict(columns, schema=schema))


def _image_bytes(source: bytes | Path) -> bytes:
    return source if isinstance(source, bytes) else Path(source).read_bytes()


# --- The check --------------------------------------------------------------------------------


def hub_problems(folder: Path) -> list[str]:
    """What makes the release folder's Hub and Croissant files disagree with its SciVer files
    (valset.json, testset.json): the card's configurations and counts, croissant.json's files
    (checksums), record sets (fields, counts), the Parquet files' records (request_ids in
    order, every field, each image's bytes) and, when the test labels are hidden, any public
    test file that carries a hidden field or the pairing. Empty when they agree."""
    folder = Path(folder)
    manifest = _read_json(folder / "manifest.json")
    parts: dict[str, list[dict]] = {}
    problems: list[str] = []
    for part, (file, _, _) in SPLIT_FILES.items():
        if (folder / file).is_file():
            records = _read_json(folder / file)
            if not isinstance(records, list) or not all(isinstance(r, dict) for r in records):
                problems.append(f"{file}: not a list of records")
                continue
            parts[part] = records
    test = parts.get("test", [])
    if isinstance(manifest, dict) and "hide_test_labels" in manifest:
        hidden = bool(manifest["hide_test_labels"])
    else:
        hidden = bool(test) and all("label" not in r for r in test)
    problems += _card_problems(folder, parts)
    problems += _croissant_problems(folder, parts, hidden)
    problems += _parquet_problems(folder, parts, hidden)
    if hidden:
        problems += _hidden_problems(folder, test)
    return problems


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text("utf-8"))
    except (OSError, ValueError):
        return None


AGAIN = (
    "export the split again (python manage.py export_release --split NAME --out DIR --overwrite)"
)


def _card_problems(folder: Path, parts: Mapping[str, list[dict]]) -> list[str]:
    """The card's front matter: its configuration reads every part, from files that exist."""
    readme = folder / "README.md"
    if not readme.is_file():
        return []
    try:
        text = readme.read_text("utf-8")
    except ValueError:
        return [f"README.md: not UTF-8 text; {AGAIN}"]
    if not text.startswith("---\n") or "\n---\n" not in text[3:]:
        return [f"README.md: no YAML front matter (the Hub's configurations and licence); {AGAIN}"]
    yaml = text[4 : text.index("\n---\n", 3)]
    problems = []
    for path in re.findall(r"^\s*path: \"?([^\"\n]+)\"?$", yaml, re.M):
        if not (folder / path).is_file():
            problems.append(f"README.md: the configuration's file {path} does not exist; {AGAIN}")
    declared = set(re.findall(r"- split: \"?(\w+)\"?", yaml))
    for part in parts:
        if parts[part] and part not in declared:
            problems.append(f"README.md: no configuration reads the {part} part; {AGAIN}")
    return problems


def _croissant_problems(folder: Path, parts: Mapping[str, list[dict]], hidden: bool) -> list[str]:
    document = _read_json(folder / CROISSANT_FILE)
    if not isinstance(document, dict):
        return [f"{CROISSANT_FILE}: missing or not JSON; {AGAIN}"]
    problems = []
    objects = {
        str(d.get("contentUrl")): d
        for d in document.get("distribution") or []
        if isinstance(d, dict) and d.get("@type") == "cr:FileObject"
    }
    for url, entry in sorted(objects.items()):
        path = folder / url
        if not path.is_file():
            problems.append(f"{CROISSANT_FILE}: file {url} does not exist; {AGAIN}")
        elif hashlib.sha256(path.read_bytes()).hexdigest() != entry.get("sha256"):
            problems.append(f"{CROISSANT_FILE}: {url}'s sha256 differs from the file's; {AGAIN}")
    sets = {
        str(r.get("@id")): r
        for r in document.get("recordSet") or []
        if isinstance(r, dict) and r.get("@id") in SPLIT_FILES
    }
    for part in sorted(set(sets) - set(parts)):
        problems.append(f"{CROISSANT_FILE}: record set {part} but no {SPLIT_FILES[part][0]}")
    for part, records in parts.items():
        file = SPLIT_FILES[part][0]
        said = sets.get(part)
        if file not in objects:
            problems.append(f"{CROISSANT_FILE}: no file object for {file}; {AGAIN}")
        if said is None:
            problems.append(f"{CROISSANT_FILE}: no record set for the {part} part; {AGAIN}")
            continue
        if said.get("numberOfItems") != len(records):
            problems.append(
                f"{CROISSANT_FILE}: record set {part} declares {said.get('numberOfItems')} "
                f"records, {file} holds {len(records)}; {AGAIN}"
            )
        declared = [f.get("name") for f in said.get("field") or [] if isinstance(f, dict)]
        wanted = [name for name, _ in part_fields(part, hidden=hidden)]
        if declared != wanted:
            problems.append(
                f"{CROISSANT_FILE}: record set {part} has fields {declared}, SciVer's records "
                f"have {wanted}; {AGAIN}"
            )
        extra = sorted({key for r in records for key in r} - set(declared))
        if extra:
            problems.append(
                f"{file}: fields {extra} that {CROISSANT_FILE}'s record set {part} does not "
                f"declare; {AGAIN}"
            )
    return problems


def _parquet_problems(folder: Path, parts: Mapping[str, list[dict]], hidden: bool) -> list[str]:
    present = {
        part: folder / path for part, path in PARQUET_FILES.items() if (folder / path).is_file()
    }
    if not present:
        return []
    if missing_pyarrow():
        return [
            f"{PARQUET_FILES[p]}: cannot be checked without pyarrow ({HUB_INSTALL})"
            for p in present
        ]
    import pyarrow.parquet as pq  # noqa: PLC0415 - optional extra ([hub])

    problems = []
    for part, records in parts.items():
        path = present.get(part)
        if path is None:
            problems.append(
                f"{PARQUET_FILES[part]}: missing beside the other Parquet file; {AGAIN}"
            )
            continue
        try:
            table = pq.read_table(str(path))
        except Exception as exc:  # whatever pyarrow raises for a damaged file is a problem
            problems.append(f"{PARQUET_FILES[part]}: unreadable ({exc}); {AGAIN}")
            continue
        problems += _rows_problems(folder, part, records, table.to_pylist())
        try:
            metadata = json.loads((table.schema.metadata or {}).get(b"huggingface", b"{}"))
        except ValueError:
            metadata = {}
        info = metadata.get("info") if isinstance(metadata, dict) else None
        said = info.get("features") if isinstance(info, dict) else None
        image = said.get(IMAGES_COLUMN) if isinstance(said, dict) else None
        if image != [{"_type": "Image"}]:
            problems.append(
                f"{PARQUET_FILES[part]}: its `{IMAGES_COLUMN}` column is not declared a list of "
                f"`datasets` images; {AGAIN}"
            )
        if hidden and part == "test":
            for name in HIDDEN_FIELDS:
                if name in table.column_names and table.column(name).null_count != len(table):
                    problems.append(f"{PARQUET_FILES[part]}: the hidden {name} has values")
    for part in sorted(set(present) - set(parts)):
        problems.append(f"{PARQUET_FILES[part]}: no {SPLIT_FILES[part][0]} beside it; {AGAIN}")
    return problems


def _rows_problems(
    folder: Path, part: str, records: Sequence[Mapping[str, Any]], rows: Sequence[Mapping[str, Any]]
) -> list[str]:
    """A part's Parquet rows against its SciVer records: the same request_ids in the same
    order, every field equal (None where the record lacks it), each image the file's bytes."""
    found: list[str] = []
    file, sciver = PARQUET_FILES[part], SPLIT_FILES[part][0]
    if [r.get("request_id") for r in rows] != [r.get("request_id") for r in records]:
        found.append(
            f"{file}: its request_ids are not those of {sciver} in its order ({len(rows)} rows, "
            f"{len(records)} records)"
        )
        return [problem + f"; {AGAIN}" for problem in found]
    images: dict[str, bytes | None] = {}
    for row, record in zip(rows, records, strict=True):
        where = f"{file}: request {record.get('request_id')}"
        unknown = sorted(set(record) - {name for name, _ in SCIVER_FIELDS})
        if unknown:
            found.append(f"{where}: {sciver} has fields {unknown} that the Parquet file lacks")
        differ = [name for name, _ in SCIVER_FIELDS if row.get(name) != record.get(name)]
        if differ:
            found.append(f"{where}: {', '.join(differ)} differ from {sciver}")
        stored = row.get(IMAGES_COLUMN) or []
        paths = image_paths(record)
        if len(stored) != len(paths):
            found.append(f"{where}: {len(stored)} image(s), the record names {len(paths)}")
            continue
        for path, image in zip(paths, stored, strict=True):
            if path not in images:
                try:
                    images[path] = (folder / path).read_bytes()
                except OSError:
                    images[path] = None
            if not isinstance(image, dict) or image.get("bytes") != images[path]:
                found.append(f"{where}: its image for {path} is not the file's bytes")
    shown = [problem + f"; {AGAIN}" for problem in found[:PROBLEMS_SHOWN]]
    if len(found) > PROBLEMS_SHOWN:
        shown.append(f"{file}: … and {len(found) - PROBLEMS_SHOWN} more")
    return shown


def _hidden_problems(folder: Path, test: Sequence[Mapping[str, Any]]) -> list[str]:
    """With hidden test labels, no public test file may carry a label, a statement, the
    evidence, who annotated, nor anything that ties a claim to its pair."""
    problems = []
    gone = set(HIDDEN_JSONL_FIELDS)
    sciver, jsonl, table = SPLIT_FILES["test"]
    leaked = sorted({key for r in test for key in r} & gone)
    if leaked:
        problems.append(f"{sciver}: test labels are hidden but its records carry {leaked}")
    if (folder / jsonl).is_file():
        try:
            lines = (folder / jsonl).read_text("utf-8").splitlines()
            rows = [json.loads(line) for line in lines if line.strip()]
        except ValueError:  # not UTF-8, or a line that is not JSON
            rows = []
            problems.append(f"{jsonl}: unreadable")
        leaked = sorted({key for r in rows if isinstance(r, dict) for key in r} & gone)
        if leaked:
            problems.append(f"{jsonl}: test labels are hidden but its rows carry {leaked}")
    if (folder / table).is_file():
        try:
            header = next(csv.reader(io.StringIO((folder / table).read_text("utf-8"))), [])
        except ValueError:
            header = []
            problems.append(f"{table}: unreadable")
        leaked = sorted(set(header) & gone)
        if leaked:
            problems.append(f"{table}: test labels are hidden but it has the columns {leaked}")
    return [problem + f"; {AGAIN}" for problem in problems]
