from django.apps import AppConfig


class AnnotationConfig(AppConfig):
    name = "annotation"
    verbose_name = "Annotation (experts, curation, claims)"

    def ready(self) -> None:
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
