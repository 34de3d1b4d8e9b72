"""Demo expert profiles for `setup_demo`: eligible annotators, and one who is not yet.

alice, bob and carol are all eligible for cs.CL, the subfield of the sample paper 2409.13817v1,
so the walkthrough of docs/annotating.md takes it from claim pairs to final items with three
experts (a writer, a second annotator and an adjudicator, who must be different people)."""

from __future__ import annotations

import datetime as dt

from django.contrib.auth import get_user_model

from annotation.experts import services as expert_services
from annotation.models import ExpertProfile, Subfield

# username: (subfields, publications (title, venue, year, subfield), trained)
DEMO_EXPERTS: dict[str, tuple[list[str], list[tuple[str, str, int, str]], bool]] = {
    "alice": (
        ["cs.CL", "cs.IR"],
        [
            ("Sparse Routing for Multilingual Transfer", "ACL", 2023, "cs.CL"),
            ("Low-Resource Adapters Revisited", "EMNLP", 2024, "cs.CL"),
            ("Dense Retrieval under Domain Shift", "SIGIR", 2023, "cs.IR"),
            ("Listwise Rerankers at Small Scale", "ECIR", 2024, "cs.IR"),
        ],
        True,
    ),
    "bob": (
        ["cs.CV", "cs.LG", "cs.CL"],
        [
            ("Self-Supervised Depth in the Wild", "CVPR", 2023, "cs.CV"),
            ("Uncertainty for Dense Prediction", "ECCV", 2024, "cs.CV"),
            ("Calibrated Curricula for Offline RL", "ICML", 2024, "cs.LG"),
            ("Stable Value Learning from Logs", "NeurIPS", 2023, "cs.LG"),
            ("Chart Question Answering with Layout Priors", "ACL", 2024, "cs.CL"),
            ("Numeric Claims in Table-to-Text Generation", "EMNLP", 2023, "cs.CL"),
        ],
        True,
    ),
    "carol": (
        ["cs.CL", "cs.CV"],
        [
            ("Grounded Captioning with Scene Graphs", "ICCV", 2023, "cs.CV"),
            ("Occlusion-Robust Video Matting", "WACV", 2024, "cs.CV"),
            ("Evaluating Faithfulness of Summaries", "NAACL", 2024, "cs.CL"),
            ("Claim Detection in Scientific Text", "COLING", 2022, "cs.CL"),
        ],
        True,
    ),
    # Not eligible yet: one publication, no training (the app says so on his page).
    "dave": (["cs.IR"], [("Query Logs as Weak Labels", "CIKM", 2024, "cs.IR")], False),
}


def _top_up(profile: ExpertProfile, codes: list[str], publications, subfields) -> list[str]:
    """Add what the demo declares and an existing demo profile lacks (e.g. bob's cs.CL from an
    older `make run`); nothing is removed or changed."""
    added = []
    have = set(profile.subfields.values_list("code", flat=True))
    missing = [c for c in codes if c not in have]
    if missing:
        profile.subfields.add(*[subfields[c] for c in missing])
        added.append(", ".join(missing))
    titles = set(profile.publications.values_list("title", flat=True))
    new = [p for p in publications if p[0] not in titles]
    for title, venue, year, code in new:
        expert_services.add_publication(
            profile=profile, title=title, venue=venue, year=year, subfield=subfields[code]
        )
    if new:
        added.append(f"{len(new)} publication{'s' if len(new) > 1 else ''}")
    return added


def create_demo_experts() -> list[str]:
    """Create the demo profiles once; a profile that exists only gets what the demo declares
    and it lacks (idempotent)."""
    Subfield.ensure_sciver_subfields()
    users = {u.username: u for u in get_user_model().objects.filter(username__in=DEMO_EXPERTS)}
    subfields = {s.code: s for s in Subfield.objects.all()}
    admin = get_user_model().objects.filter(username="admin").first()
    lines = []
    for username, (codes, publications, trained) in DEMO_EXPERTS.items():
        user = users.get(username)
        if user is None:
            continue
        existing = ExpertProfile.objects.filter(user=user).first()
        if existing is not None:
            added = _top_up(existing, codes, publications, subfields)
            done = f"added {' and '.join(added)}" if added else "left as it is"
            lines.append(f"  expert {username}: profile exists, {done}")
            continue
        profile = expert_services.ensure_expert_profile(user=user)
        expert_services.update_expert_profile(
            profile=profile, subfields=[subfields[c] for c in codes], active=True
        )
        for title, venue, year, code in publications:
            expert_services.add_publication(
                profile=profile, title=title, venue=venue, year=year, subfield=subfields[code]
            )
        if trained:
            expert_services.record_training(
                profile=profile,
                completed_on=dt.date(2024, 11, 18),
                trainer="admin",
                notes="Two-hour individual session (demo)",
                recorded_by=admin,
            )
        lines.append(f"  expert {username}: {', '.join(codes)}{'' if trained else ' (untrained)'}")
    return lines
