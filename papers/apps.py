from django.apps import AppConfig


class PapersConfig(AppConfig):
    name = "papers"
    verbose_name = "Papers (arXiv context)"

    def ready(self) -> None:
        from papers import signals  # noqa: F401  (connects the receivers)
