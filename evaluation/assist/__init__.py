"""A model in the annotation loop: the text-only check (SciVer's criterion 2) and perturbation
ideas, through the evaluation's safe client (rules: pure; services; views)."""
