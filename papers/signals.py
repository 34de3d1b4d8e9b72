"""A deleted paper takes its media with it, once the deletion has committed."""

from __future__ import annotations

from functools import partial

from django.db import transaction
from django.db.models.signals import post_delete
from django.dispatch import receiver

from papers.media import remove_paper_media
from papers.models import Paper


@receiver(post_delete, sender=Paper, dispatch_uid="papers.remove_media_of_deleted_paper")
def remove_media_of_deleted_paper(sender: type[Paper], instance: Paper, **kwargs: object) -> None:
    # After the commit: a rolled-back deletion keeps its paper, so it must keep its files.
    transaction.on_commit(
        partial(remove_paper_media, instance.arxiv_id, instance.version), using=kwargs.get("using")
    )
