"""Accounts and expert profiles: sign-in accounts, subfields, publications, training."""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Iterable

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.contrib.auth.tokens import default_token_generator
from django.db import transaction
from django.urls import reverse
from django.utils import timezone
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode

from annotation.errors import AccountError, too_long
from annotation.models import (
    ExpertProfile,
    Publication,
    Subfield,
    Training,
)
from annotation.models.experts import MAX_PUBLICATION_TITLE

User = get_user_model()


log = logging.getLogger(__name__)

# Free text of the People pages, refused whole (never cut) when longer, by the page's form and
# by these services alike (a command, the shell or a script meets the same limit).
MAX_NOTES = 5000  # an expert profile's notes, a training's notes
MAX_NAME = 150  # a username, a first or last name, who gave a training (the columns' own)
MAX_VENUE = 200  # a publication's venue (its column)


def _refuse_long(fields: Iterable[tuple[str, str, int]]) -> None:
    """Refuse, naming each (field, text, limit) longer than its limit with the limit and the
    length; nothing is recorded."""
    problems = [message for name, text, limit in fields if (message := too_long(name, text, limit))]
    if problems:
        raise AccountError("Nothing was saved: " + " ".join(problems), reason="too_long")


# --- Accounts ------------------------------------------------------------------------------


def password_reset_path(*, user: AbstractBaseUser) -> str:
    """The path of a link that lets `user` choose a password. It works once: Django's token
    covers the password hash, which changes when the link is used."""
    uid = urlsafe_base64_encode(force_bytes(user.pk))
    token = default_token_generator.make_token(user)
    return reverse("password_reset_confirm", kwargs={"uidb64": uid, "token": token})


@transaction.atomic
def create_account(
    *,
    username: str,
    first_name: str = "",
    last_name: str = "",
    email: str = "",
    is_staff: bool = False,
    created_by: AbstractBaseUser | None = None,
) -> tuple[AbstractBaseUser, str]:
    """A new account without a password, and its expert profile; returns the user and the path
    of the one-time link with which they choose their password (no e-mail is sent)."""
    username = username.strip()
    _refuse_long(
        [
            ("Username", username, MAX_NAME),
            ("First name", first_name.strip(), MAX_NAME),
            ("Last name", last_name.strip(), MAX_NAME),
            ("Email", email.strip(), 254),
        ]
    )
    if not username:
        raise AccountError("A username is required.")
    if User.objects.filter(username__iexact=username).exists():
        raise AccountError(f"The username {username!r} is taken.")
    user = User(
        username=username,
        first_name=first_name.strip(),
        last_name=last_name.strip(),
        email=email.strip(),
        is_staff=is_staff,
        is_superuser=is_staff,
    )
    user.set_unusable_password()
    user.save()
    ExpertProfile.objects.create(user=user)
    log.info("account %s created by %s", username, created_by)
    return user, password_reset_path(user=user)


@transaction.atomic
def reset_password(*, user: AbstractBaseUser, by: AbstractBaseUser | None = None) -> str:
    """Disable the current password (and so any earlier link and the user's sessions) and
    return the path of a fresh one-time link for choosing a new one."""
    user = User.objects.select_for_update().get(pk=user.pk)
    user.set_unusable_password()
    user.save(update_fields=["password"])
    log.info("password of %s reset by %s", user.get_username(), by)
    return password_reset_path(user=user)


# --- Experts -------------------------------------------------------------------------------


def ensure_expert_profile(*, user: AbstractBaseUser) -> ExpertProfile:
    return ExpertProfile.objects.get_or_create(user=user)[0]


@transaction.atomic
def update_expert_profile(
    *,
    profile: ExpertProfile,
    subfields: Iterable[Subfield],
    active: bool,
    notes: str = "",
) -> ExpertProfile:
    _refuse_long([("Notes", notes, MAX_NOTES)])
    profile.active = active
    profile.notes = notes
    profile.save(update_fields=["active", "notes", "updated_at"])
    profile.subfields.set(list(subfields))
    return profile


@transaction.atomic
def add_publication(
    *, profile: ExpertProfile, title: str, venue: str, year: int, subfield: Subfield
) -> Publication:
    title, venue = title.strip(), venue.strip()
    if not title or not venue:
        raise AccountError("A publication needs a title and a venue.")
    _refuse_long([("Title", title, MAX_PUBLICATION_TITLE), ("Venue", venue, MAX_VENUE)])
    if not 1950 <= year <= timezone.now().year + 1:
        raise AccountError(f"{year} is not a plausible publication year.")
    return Publication.objects.create(
        expert=profile, title=title, venue=venue, year=year, subfield=subfield
    )


@transaction.atomic
def remove_publication(*, publication: Publication) -> None:
    publication.delete()


@transaction.atomic
def record_training(
    *,
    profile: ExpertProfile,
    completed_on: dt.date,
    trainer: str,
    notes: str = "",
    recorded_by: AbstractBaseUser | None = None,
) -> Training:
    if completed_on > timezone.localdate():
        raise AccountError("Training can only be recorded once it has taken place.")
    if not trainer.strip():
        raise AccountError("Say who gave the training.")
    _refuse_long([("Trained by", trainer.strip(), MAX_NAME), ("Notes", notes, MAX_NOTES)])
    return Training.objects.create(
        expert=profile,
        completed_on=completed_on,
        trainer=trainer.strip(),
        notes=notes,
        recorded_by=recorded_by,
    )


# --- Assignment ----------------------------------------------------------------------------
