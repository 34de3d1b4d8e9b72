"""How the API knows who asks: a personal token (`Authorization: Bearer svs_…`), or the
browser's session (with Django's CSRF check on writes, as the pages have it)."""

from __future__ import annotations

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework import authentication, exceptions
from rest_framework.request import Request

from api.models import ApiToken
from api.tokens import find_token

KEYWORDS = ("bearer", "token")


class TokenAuthentication(authentication.BaseAuthentication):
    def authenticate(self, request: Request) -> tuple[object, ApiToken] | None:
        try:
            header = authentication.get_authorization_header(request).split()
        except UnicodeEncodeError:  # beyond Latin-1: no server delivers it, a test client may
            raise exceptions.AuthenticationFailed("This token is not valid.") from None
        if not header or header[0].decode("latin-1").lower() not in KEYWORDS:
            return None  # no token: the session may still sign the request in
        if len(header) != 2:
            raise exceptions.AuthenticationFailed(
                "Send 'Authorization: Bearer <token>', the token with no spaces."
            )
        try:
            raw = header[1].decode("ascii")
        except UnicodeDecodeError:
            raise exceptions.AuthenticationFailed("This token is not valid.") from None
        token = find_token(raw)
        if token is None:
            raise exceptions.AuthenticationFailed("This token is not valid, or was revoked.")
        if not token.user.is_active:
            raise exceptions.AuthenticationFailed("This token's account is not active.")
        return token.user, token

    def authenticate_header(self, request: Request) -> str:
        return 'Bearer realm="SciVer Studio API"'


class SessionAuthentication(authentication.SessionAuthentication):
    """The browser's session; writes need the CSRF token, as on the pages."""


class TokenScheme(OpenApiAuthenticationExtension):
    target_class = "api.auth.TokenAuthentication"
    name = "token"

    def get_security_definition(self, auto_schema: object) -> dict:
        return {
            "type": "http",
            "scheme": "bearer",
            "description": "A personal API token (Account → API tokens), shown once when made.",
        }


class SessionScheme(OpenApiAuthenticationExtension):
    target_class = "api.auth.SessionAuthentication"
    name = "session"

    def get_security_definition(self, auto_schema: object) -> dict:
        return {
            "type": "apiKey",
            "in": "cookie",
            "name": "sessionid",
            "description": "The browser's session (writes need the CSRF token, as on the pages).",
        }
