"""Personal API tokens: what a script signs in with.

A token is 32 random bytes, shown once when made and kept only as its SHA-256 digest (a stolen
database holds no usable token). Its first characters (`prefix`) name it on the pages."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class ApiToken(models.Model):
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens"
    )
    name = models.CharField(max_length=100, help_text="What the owner uses it for")
    digest = models.CharField(max_length=64, unique=True, help_text="SHA-256 of the token, hex")
    prefix = models.CharField(max_length=12, help_text="The token's first characters, to name it")
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)
    revoked_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.prefix}… ({self.name})"

    @property
    def active(self) -> bool:
        return self.revoked_at is None
