from django.apps import AppConfig


class AnnotationConfig(AppConfig):
    name = "annotation"
    verbose_name = "Annotation (experts, curation, claims)"

    def ready(self) -> None:
        # Each sign-in is linked to its person; a person made inactive has no session left
        # (annotation/sessions.py).
        from django.contrib.auth import get_user_model
        from django.contrib.auth.signals import user_logged_in, user_logged_out
        from django.db.models.signals import post_save

        from annotation import sessions

        user_logged_in.connect(sessions.link_session, dispatch_uid="annotation.sessions.link")
        user_logged_out.connect(sessions.unlink_session, dispatch_uid="annotation.sessions.unlink")
        post_save.connect(
            sessions.end_sessions_of_inactive,
            sender=get_user_model(),
            dispatch_uid="annotation.sessions.inactive",
        )

        # What the writing stage hands on goes to blind review in the same transaction: the
        # writing stage never imports the review stage (it sits below it).
        from annotation import lifecycle
        from annotation.review import services as review

        lifecycle.on_handoff(
            lifecycle.PAIR_WRITTEN,
            lambda pair, actor: review.open_second_annotation(pair=pair, actor=actor),
        )
        lifecycle.on_handoff(
            lifecycle.CLAIM_REPLACED,
            lambda claim, actor: review.open_replacement_review(claim=claim, actor=actor),
        )
