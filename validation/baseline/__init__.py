"""The human baseline (SciVer: experts answer a sample of claims blind)."""
