"""Personal API tokens: made, found and revoked (the one place that reads or writes them).

The token is `svs_` and 32 random bytes (URL-safe base64). Only its SHA-256 digest is stored;
a presented token is found by its digest and the digests are compared again in constant time
(`hmac.compare_digest`), so no comparison's timing tells how much of a guess was right."""

from __future__ import annotations

import hashlib
import hmac
import secrets
from datetime import timedelta

from django.contrib.auth.base_user import AbstractBaseUser
from django.db.models import QuerySet
from django.utils import timezone

from annotation.errors import AnnotationError
from api.models import ApiToken

PREFIX = "svs_"
TOKEN_BYTES = 32
MAX_NAME = 100
MAX_ACTIVE_PER_PERSON = 20
# last_used_at is written at most this often per token (not on every request).
USED_EVERY = timedelta(minutes=1)


def digest_of(raw: str) -> str:
    return hashlib.sha256(raw.encode("utf-8", "surrogatepass")).hexdigest()


def issue_token(*, user: AbstractBaseUser, name: str) -> tuple[ApiToken, str]:
    """A new token for `user`: the stored row and the token itself (shown once, never again)."""
    name = name.strip()
    if not name:
        raise AnnotationError("Name the token (what it is for).")
    if len(name) > MAX_NAME:
        raise AnnotationError(f"A token's name takes at most {MAX_NAME} characters.")
    if not user.is_active:
        raise AnnotationError("An inactive account cannot have API tokens.")
    if active_tokens(user).count() >= MAX_ACTIVE_PER_PERSON:
        raise AnnotationError(
            f"You have {MAX_ACTIVE_PER_PERSON} active tokens: revoke one before making another."
        )
    raw = PREFIX + secrets.token_urlsafe(TOKEN_BYTES)
    token = ApiToken.objects.create(
        user=user, name=name, digest=digest_of(raw), prefix=raw[: len(PREFIX) + 6]
    )
    return token, raw


def find_token(raw: str) -> ApiToken | None:
    """The active token `raw` is, with its user; None for anything else."""
    if not raw.startswith(PREFIX) or len(raw) > 200:
        return None
    digest = digest_of(raw)
    token = (
        ApiToken.objects.select_related("user")
        .filter(digest=digest, revoked_at__isnull=True)
        .first()
    )
    if token is None or not hmac.compare_digest(token.digest, digest):
        return None
    now = timezone.now()
    if token.last_used_at is None or now - token.last_used_at > USED_EVERY:
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
        token.last_used_at = now
    return token


def active_tokens(user: AbstractBaseUser) -> QuerySet[ApiToken]:
    return ApiToken.objects.filter(user=user, revoked_at__isnull=True)


def revoke_token(*, token: ApiToken, by: AbstractBaseUser) -> bool:
    """Revoke `token` (its owner, or an admin for anyone's); False when it already was."""
    if token.user_id != by.pk and not by.is_staff:
        raise AnnotationError("Only the token's owner or an admin may revoke it.")
    updated = ApiToken.objects.filter(pk=token.pk, revoked_at__isnull=True).update(
        revoked_at=timezone.now(), revoked_by=by
    )
    token.refresh_from_db()
    return bool(updated)


def revoke_all(*, user: AbstractBaseUser, by: AbstractBaseUser | None = None) -> int:
    """Revoke every token of `user` (their account deactivated or archived)."""
    return ApiToken.objects.filter(user=user, revoked_at__isnull=True).update(
        revoked_at=timezone.now(), revoked_by=by
    )
