"""SciVer's own reading of a release (`validation.release.reading`), on hand-written records
and paper files: which sections a record's `section` list reaches, and which images a model
is shown with which captions (SCIVER.md, "How SciVer's own code reads a release")."""

from __future__ import annotations

import pytest

from validation.release.reading import (
    is_reachable,
    model_input,
    reached_section_ids,
    record_elements,
    top_level,
)

PAPER = {
    "sections": [
        {"section_id": "abstract", "section_name": "Abstract", "text": "We study tables."},
        {"section_id": "3", "section_name": "Method", "text": "We train a model."},
        {"section_id": "3.1", "section_name": "Data", "text": "Data comes from arXiv."},
        {"section_id": "3.2", "section_name": "Training", "text": "We train for 3 epochs."},
        {"section_id": "4", "section_name": "Results", "text": "Table 2 shows accuracy."},
        {"section_id": "4.3.p2", "section_name": "Ablation.", "text": "Without pretraining, 61."},
        {"section_id": "S4.SS1.SSS0.Px1", "section_name": "Anchored", "text": "Never read."},
        {"section_id": "limitations", "section_name": "Limitations", "text": "Only English."},
        {"section_id": "30", "section_name": "Thirty", "text": "A long paper's section."},
    ],
    "image_paths": {"3": {"caption": "Figure 3: loss curves."}},
    "tables": {"2": {"capture": "Table 2: accuracy per model."}},
}


def direct(section: list, **fields) -> dict:
    return {
        "claim_type": "direct",
        "section": section,
        "type": "table",
        "item": "2",
        "image_path": "./SciVer/images/x_table_2.png",
    } | fields


def test_a_subsection_reaches_every_section_of_its_top_level_section():
    seen = model_input(direct(["3.2"]), PAPER)
    assert seen.section_ids == ("3", "3.1", "3.2")
    # Each section as SciVer's loop appends it: name, ":\n", text, "\n".
    assert seen.context == (
        "Method:\nWe train a model.\nData:\nData comes from arXiv.\n"
        "Training:\nWe train for 3 epochs.\n"
    )
    # "3" does not reach "30": the match is on the whole part before the first ".".
    assert "Thirty" not in seen.context


def test_a_block_under_an_unnumbered_heading_is_reached_through_its_parent_number():
    assert model_input(direct(["4.3.p2"]), PAPER).section_ids == ("4", "4.3.p2")
    assert model_input(direct(["4"]), PAPER).section_ids == ("4", "4.3.p2")


def test_an_anchor_style_section_id_is_never_matched():
    # A record naming the section's number does not reach the anchor ...
    assert "Never read." not in model_input(direct(["4"]), PAPER).context
    # ... and a record naming the anchor reaches only what starts with "S4" (nothing else).
    assert model_input(direct(["S4.SS1.SSS0.Px1"]), PAPER).section_ids == ("S4.SS1.SSS0.Px1",)
    assert not is_reachable("S4.SS1.SSS0.Px1")
    assert not is_reachable("Sx1") and not is_reachable("A1")


def test_slugs_of_unnumbered_sections_are_reached_by_name():
    assert model_input(direct(["limitations"]), PAPER).context == "Limitations:\nOnly English.\n"
    assert model_input(direct(["abstract"]), PAPER).section_ids == ("abstract",)


def test_an_empty_or_missing_section_list_gives_no_text():
    assert model_input(direct([]), PAPER).context == ""
    assert model_input({"claim_type": "direct"}, PAPER).context == ""
    assert model_input(direct("3"), PAPER).context == ""  # not a list: no text either
    assert model_input(direct(["9"]), PAPER).section_ids == ()


@pytest.mark.parametrize(
    ("section_id", "reachable"),
    [
        ("3", True),
        ("3.2", True),
        ("4.3.p2", True),
        ("A", True),
        ("A.1", True),
        ("IV", True),
        ("II-A", True),
        ("abstract", True),
        ("limitations", True),
        ("limitations.p1", True),
        ("S4", False),
        ("S4.SS1", False),
        ("Sx1", False),
        ("A1", False),
        ("", False),
    ],
)
def test_which_section_ids_a_record_could_name(section_id, reachable):
    assert is_reachable(section_id) is reachable


def test_top_level_and_reached_ids():
    assert top_level("3.2.1") == "3" and top_level("S4.SS1") == "S4" and top_level("4") == "4"
    assert reached_section_ids([direct(["3.2", "4"]), direct(["limitations"])]) == {
        "3",
        "4",
        "limitations",
    }


def test_images_are_the_records_fields_with_captions_from_the_paper_file():
    seen = model_input(direct(["4"]), PAPER)
    assert [(i.type, i.item, i.path, i.caption) for i in seen.images] == [
        ("table", "2", "./SciVer/images/x_table_2.png", "Table 2: accuracy per model."),
    ]
    parallel = {
        "claim_type": "parallel",
        "section": ["4"],
        "item1_type": "chart",
        "item1": "3",
        "item1_path": "./SciVer/images/x_chart_3.png",
        "item2_type": "table",
        "item2": "2",
        "item2_path": "./SciVer/images/x_table_2.png",
        # Fields of the other shape are not read for a parallel record.
        "type": "table",
        "item": "9",
        "image_path": "./SciVer/images/x_table_9.png",
    }
    images = model_input(parallel, PAPER).images
    assert [(i.type, i.item, i.caption) for i in images] == [
        ("chart", "3", "Figure 3: loss curves."),
        ("table", "2", "Table 2: accuracy per model."),
    ]
    assert record_elements(parallel) == [
        ("chart", "3", "./SciVer/images/x_chart_3.png"),
        ("table", "2", "./SciVer/images/x_table_2.png"),
    ]


def test_table_captions_come_from_capture_and_a_missing_caption_is_empty():
    # `capture` (sic) is the public release's key: a table entry with `caption` gives nothing.
    paper = PAPER | {"tables": {"2": {"caption": "wrong key"}}, "image_paths": {}}
    seen = model_input(direct(["4"]), paper)
    assert seen.images[0].caption == ""
    chart = direct(["4"], type="chart", item="3", image_path="./SciVer/images/x_chart_3.png")
    assert model_input(chart, paper).images[0].caption == ""
    assert model_input(chart, PAPER).images[0].caption == "Figure 3: loss curves."
