"""Error analysis of an evaluation run: experts tag a sample of the model's wrong answers with
SciVer's error types (Appendix C); agreement, counts and downloads for the dataset card."""
