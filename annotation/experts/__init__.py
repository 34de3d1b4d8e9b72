"""Experts: accounts, profiles (subfields, publications, training) and eligibility."""
