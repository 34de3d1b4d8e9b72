"""The automatic warnings live in `annotation.checks` (writers see them too); kept importable."""

from annotation.checks import (  # noqa: F401
    MISSPELLINGS,
    Warning,
    claim_warnings,
    length_out_of_range,
    misspellings,
    numbers_in,
    repeated_words,
    text_only_numbers,
    trivial_perturbation,
    visual_text,
)
