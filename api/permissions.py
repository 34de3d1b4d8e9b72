"""Who may call a route: admins (staff, as the manage pages), or anyone signed in."""

from __future__ import annotations

from rest_framework.permissions import BasePermission
from rest_framework.request import Request


class IsAdmin(BasePermission):
    message = "Only admins may use this route."

    def has_permission(self, request: Request, view: object) -> bool:
        user = request.user
        return bool(user and user.is_authenticated and user.is_active and user.is_staff)


class IsSignedIn(BasePermission):
    message = "Sign in, or send a personal API token."

    def has_permission(self, request: Request, view: object) -> bool:
        user = request.user
        return bool(user and user.is_authenticated and user.is_active)
