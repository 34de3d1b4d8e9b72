"""Experts and their eligibility by subfield."""

from __future__ import annotations

from collections.abc import Sequence

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.db.models import (
    Count,
    Exists,
    F,
    OuterRef,
    Q,
    QuerySet,
    Subquery,
)
from django.db.models.functions import Coalesce

from annotation.experts.eligibility import Eligibility, judge_eligibility
from annotation.models import (
    ExpertProfile,
    Publication,
    Subfield,
    Training,
)
from annotation.models.experts import min_publications

User = get_user_model()


def eligibility_by_expert(
    user_ids: Sequence[int], codes: Sequence[str]
) -> dict[int, dict[str, Eligibility]]:
    """For each user and subfield code, whether they are eligible and why not (four queries)."""
    profiles = {
        p.user_id: p
        for p in ExpertProfile.objects.filter(user_id__in=user_ids).prefetch_related("subfields")
    }
    publications: dict[tuple[int, str], int] = {
        (row["expert__user_id"], row["subfield__code"]): row["n"]
        for row in Publication.objects.filter(expert__user_id__in=user_ids)
        .values("expert__user_id", "subfield__code")
        .annotate(n=Count("id"))
    }
    trained = set(
        Training.objects.filter(expert__user_id__in=user_ids).values_list(
            "expert__user_id", flat=True
        )
    )
    required = min_publications()
    result: dict[int, dict[str, Eligibility]] = {}
    for user_id in user_ids:
        profile = profiles.get(user_id)
        declared = {s.code for s in profile.subfields.all()} if profile else set()
        result[user_id] = {
            code: judge_eligibility(
                subfield=code,
                has_profile=profile is not None,
                active=bool(profile and profile.active and profile.archived_at is None),
                declared=code in declared,
                publications=publications.get((user_id, code), 0),
                trained=user_id in trained,
                required=required,
            )
            for code in codes
        }
    return result


def subfields_with_eligibility(user_id: int) -> list[tuple[Subfield, Eligibility]]:
    """Every subfield with whether `user_id` is eligible for it and why not, as
    `eligibility_by_expert` judges it, in one query (the workspace shows it on every visit)."""
    profile = ExpertProfile.objects.filter(user_id=user_id)
    rows = Subfield.objects.annotate(
        has_profile=Exists(profile),
        active=Exists(profile.filter(active=True, archived_at__isnull=True)),
        trained=Exists(Training.objects.filter(expert__user_id=user_id)),
        declared=Exists(
            ExpertProfile.subfields.through.objects.filter(
                expertprofile__user_id=user_id, subfield_id=OuterRef("pk")
            )
        ),
        publication_count=Coalesce(
            Subquery(
                Publication.objects.filter(expert__user_id=user_id, subfield_id=OuterRef("pk"))
                .order_by()
                .values("subfield_id")
                .annotate(n=Count("id"))
                .values("n")[:1]
            ),
            0,
        ),
    )
    required = min_publications()
    return [
        (
            row,
            judge_eligibility(
                subfield=row.code,
                has_profile=row.has_profile,
                active=row.active,
                declared=row.declared,
                publications=row.publication_count,
                trained=row.trained,
                required=required,
            ),
        )
        for row in rows
    ]


def eligible_codes_query(user_id: int) -> QuerySet:
    """The codes of the subfields `user_id` is eligible for, as one query (usable as a subquery):
    the rule of `judge_eligibility`, an active profile listing the subfield, the training, and
    enough publications in it."""
    publications = (
        Publication.objects.filter(expert__user_id=user_id, subfield=OuterRef("pk"))
        .order_by()
        .values("subfield")
        .annotate(n=Count("id"))
        .values("n")
    )
    return (
        Subfield.objects.filter(
            experts__user_id=user_id, experts__active=True, experts__archived_at__isnull=True
        )
        .filter(Exists(Training.objects.filter(expert__user_id=user_id)))
        .annotate(n_publications=Coalesce(Subquery(publications), 0))
        .filter(n_publications__gte=min_publications())
        .order_by()
        .values("code")
    )


def eligible_experts(code: str) -> QuerySet:
    """Active users whose active expert profile is eligible for the subfield `code`."""
    declared = ExpertProfile.subfields.through.objects.filter(
        expertprofile_id=OuterRef("expert"), subfield__code=code
    )
    publications = (
        Publication.objects.filter(expert=OuterRef("expert"), subfield__code=code)
        .values("expert")
        .annotate(n=Count("id"))
        .values("n")
    )
    return (
        User.objects.filter(is_active=True, expert__active=True, expert__archived_at__isnull=True)
        .filter(Exists(declared), Exists(Training.objects.filter(expert=OuterRef("expert"))))
        .annotate(subfield_publications=Coalesce(Subquery(publications), 0))
        .filter(subfield_publications__gte=min_publications())
        .order_by("username")
    )


def experts(*, active_only: bool = False) -> QuerySet:
    """Users with an expert profile, with their profile; `active_only`: those who may get work
    (an enabled account, an active profile that is not archived)."""
    users = User.objects.filter(expert__isnull=False)
    if active_only:
        users = users.filter(is_active=True, expert__active=True, expert__archived_at__isnull=True)
    return users.select_related("expert").order_by("username")


def is_active_expert(user: AbstractBaseUser) -> bool:
    profile = getattr(user, "expert", None)
    return bool(user.is_active and profile and profile.active and profile.archived_at is None)


def people(*, show: str = "", search: str = "") -> QuerySet:
    """Accounts for the People page. show: '' active (enabled, not archived, and an active
    profile if they have one), 'inactive' (disabled or an inactive profile, not archived),
    'archived', 'all'; search: in username and names."""
    users = User.objects.select_related("expert").order_by("-is_active", "username")
    archived = Q(expert__archived_at__isnull=False)
    inactive = Q(is_active=False) | Q(expert__active=False)
    if show == "archived":
        users = users.filter(archived)
    elif show == "inactive":
        users = users.filter(inactive).exclude(archived)
    elif show != "all":
        users = users.exclude(archived).exclude(inactive)
    if search:
        users = users.filter(
            Q(username__icontains=search)
            | Q(first_name__icontains=search)
            | Q(last_name__icontains=search)
        )
    return users.annotate(archived_at=F("expert__archived_at"))


# --- Access --------------------------------------------------------------------------------
