"""Claim writing: claim tasks, the entailed and refuted claims, and their rules."""
