"""Blind second annotation, comparison, adjudication and agreement statistics (SciVer step 6)."""
