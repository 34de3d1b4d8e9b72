"""Synthetic experts: the accounts `simulate_annotation` makes (workspace.demo.simulate), told
apart from people on the People page and by the demo's archiving."""

from __future__ import annotations

# Usernames of the synthetic experts simulate_annotation makes (no password: nobody signs in).
SYNTHETIC_EXPERT_PREFIX = "sim-"


def is_synthetic_expert(user) -> bool:
    return (
        user.get_username().startswith(SYNTHETIC_EXPERT_PREFIX) and not user.has_usable_password()
    )
