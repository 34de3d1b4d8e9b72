from typing import Any

from django.apps import AppConfig


class ApiConfig(AppConfig):
    name = "api"
    verbose_name = "HTTP API"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # An account deactivated (in the admin or anywhere) or archived keeps no API token: its
        # tokens are revoked in the transaction that ends its sessions (annotation/sessions.py's
        # `end_sessions_of_inactive`, annotation/archiving.py's `archive_account`). The API sits
        # above annotation, which may not import it: the API listens to the same saves.
        from django.contrib.auth import get_user_model
        from django.db.models.signals import post_save

        from annotation.models import ArchiveAction, ArchiveEvent
        from api.tokens import revoke_all

        def revoke_tokens_of_inactive(sender: Any, instance: Any, **kwargs: Any) -> None:
            if not instance.is_active:
                revoke_all(user=instance)

        def revoke_tokens_of_archived(sender: Any, instance: Any, created: bool, **kwargs: Any):
            if created and instance.action == ArchiveAction.ARCHIVED and instance.account_id:
                revoke_all(user=instance.account, by=instance.actor)

        post_save.connect(
            revoke_tokens_of_inactive,
            sender=get_user_model(),
            weak=False,
            dispatch_uid="api.tokens.inactive",
        )
        post_save.connect(
            revoke_tokens_of_archived,
            sender=ArchiveEvent,
            weak=False,
            dispatch_uid="api.tokens.archived",
        )
