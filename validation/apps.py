from django.apps import AppConfig


class ValidationConfig(AppConfig):
    name = "validation"
    verbose_name = "Validation and release"

    def ready(self) -> None:
        # A claim that becomes final is handed to validation in the transaction that made it
        # final: the review stage never imports this one.
        from annotation import lifecycle
        from annotation.models import ClaimReview
        from annotation.models.review import FINAL_STATES
        from validation.services import open_validation

        lifecycle.on_enter(ClaimReview, FINAL_STATES, open_validation)
