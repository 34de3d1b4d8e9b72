"""The project's own app: deployment checks, the backup and restore commands, and the link
from a sign-in's session to its person (config/sessions.py)."""

from django.apps import AppConfig


class SiteConfig(AppConfig):
    name = "config"
    verbose_name = "SciVer Studio site"

    def ready(self) -> None:
        from django.contrib.auth.signals import user_logged_in, user_logged_out

        from config import checks  # noqa: F401  (registers the deployment checks)
        from config.sessions import link_session, unlink_session

        user_logged_in.connect(link_session, dispatch_uid="config.sessions.link")
        user_logged_out.connect(unlink_session, dispatch_uid="config.sessions.unlink")
