"""The project's own app: deployment checks, and the backup and restore commands."""

from django.apps import AppConfig


class SiteConfig(AppConfig):
    name = "config"
    verbose_name = "SciVer Studio site"

    def ready(self) -> None:
        from config import checks  # noqa: F401  (registers the deployment checks)
