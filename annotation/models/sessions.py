"""The link from a sign-in's session to its person."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class SessionLink(models.Model):
    """A session someone signed in to, by its key (Django's database sessions hold the person
    only inside their encoded data): kept on sign-in, so that all of one person's sessions end
    in one indexed statement (`annotation.sessions.end_sessions`). Not a foreign key to the
    session, so that Django deletes a session row as it always does (one statement, no cascade
    to collect); a link whose session is gone is harmless and removed with its person's others."""

    session_key = models.CharField(max_length=40, primary_key=True)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+", db_index=True
    )
    signed_in_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"{self.user_id}: {self.session_key[:8]}…"
