"""One request budget per token (per person on a session, per address when anonymous), at
API_RATE (e.g. "600/min"), read on every request so a setting change applies at once.

The counts live in Django's cache: with the default local-memory cache each server process
keeps its own (set CACHES to Redis for one budget across processes)."""

from __future__ import annotations

from django.conf import settings
from rest_framework.request import Request
from rest_framework.throttling import SimpleRateThrottle

from api.models import ApiToken


class PerToken(SimpleRateThrottle):
    scope = "api"

    def get_rate(self) -> str | None:
        return settings.API_RATE or None

    def get_cache_key(self, request: Request, view: object) -> str:
        if isinstance(request.auth, ApiToken):
            ident = f"token:{request.auth.pk}"
        elif request.user and request.user.is_authenticated:
            ident = f"user:{request.user.pk}"
        else:
            ident = f"address:{self.get_ident(request)}"
        return self.cache_format % {"scope": self.scope, "ident": ident}
