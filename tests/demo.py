"""Demo data for tests: the people `make run` starts with, and simulate_annotation's output."""

from __future__ import annotations

import io

from django.contrib.auth import get_user_model
from django.core.management import call_command

from workspace.demo.experts import create_demo_experts


def people() -> None:
    """An admin, three people (alice, bob, carol) and the demo's synthetic experts."""
    users = get_user_model()
    users.objects.create_user("admin", password="x", is_staff=True, is_superuser=True)
    for name in ("alice", "bob", "carol"):
        users.objects.create_user(name, password="x")
    create_demo_experts()


def simulate(*args: str) -> str:
    """simulate_annotation with `args`; what it printed."""
    out = io.StringIO()
    call_command("simulate_annotation", *args, stdout=out)
    return out.getvalue()
