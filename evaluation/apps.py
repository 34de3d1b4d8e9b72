from django.apps import AppConfig


class EvaluationConfig(AppConfig):
    name = "evaluation"
    verbose_name = "Model evaluation"

    def import_models(self) -> None:
        super().import_models()
        # The error analysis keeps its models in its own package (evaluation/errors/), which
        # imports evaluation.models; loading it here, not from there, keeps the two one way.
        import evaluation.errors.models  # noqa: F401
