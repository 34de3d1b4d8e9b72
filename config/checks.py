"""System checks for settings that cannot work together (run by every manage.py command)."""

from __future__ import annotations

from django.conf import settings
from django.core.checks import Tags, Warning, register


@register(Tags.security)
def secure_cookies_need_https(app_configs, **kwargs) -> list[Warning]:
    """Secure cookies with nothing that makes requests HTTPS: over plain HTTP the browser never
    sends the session and CSRF cookies back, and every sign-in fails with 403."""
    secure = [
        name for name in ("SESSION_COOKIE_SECURE", "CSRF_COOKIE_SECURE") if getattr(settings, name)
    ]
    if not secure or settings.SECURE_SSL_REDIRECT or settings.SECURE_PROXY_SSL_HEADER:
        return []
    return [
        Warning(
            f"{' and '.join(secure)} are on (SECURE_COOKIES), but SECURE_SSL_REDIRECT is off "
            "and SECURE_PROXY_SSL_HEADER is unset: a browser talking plain HTTP to this server "
            "never sends those cookies back, so signing in fails with 403 (CSRF).",
            hint=(
                "Behind a TLS-terminating proxy set SECURE_PROXY_SSL_HEADER=X-Forwarded-Proto "
                "(and let the proxy set that header); serving HTTPS directly, turn "
                "SECURE_SSL_REDIRECT on; for a plain-HTTP trial on a private network only, "
                "SECURE_COOKIES=0."
            ),
            id="sciver.W001",
        )
    ]


@register(Tags.security)
def proxy_count_needs_a_proxy(app_configs, **kwargs) -> list[Warning]:
    """PROXY_COUNT trusts X-Forwarded-For: without a proxy in front any client can name its own
    address, and the sign-in throttle's count by address means nothing."""
    if getattr(settings, "PROXY_COUNT", 0) > 0 and not settings.SECURE_PROXY_SSL_HEADER:
        return [
            Warning(
                "PROXY_COUNT is set but SECURE_PROXY_SSL_HEADER is not: the app reads client "
                "addresses from X-Forwarded-For as if a proxy were in front of it, yet does not "
                "trust that proxy for HTTPS.",
                hint="Set both when a reverse proxy is in front of the app, neither otherwise.",
                id="sciver.W002",
            )
        ]
    return []
