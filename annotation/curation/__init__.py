"""Curation: a paper's context, sections and elements kept or removed (SciVer step 3)."""
