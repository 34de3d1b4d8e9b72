from django.apps import AppConfig


class GuidelinesConfig(AppConfig):
    name = "guidelines"
    verbose_name = "Guidelines and flags"

    def ready(self) -> None:
        # Every submitted work item records the guideline version it was done under, in the
        # transaction that finished it: the stages below never import this app.
        from annotation import lifecycle
        from annotation.models import WorkItem, WorkStatus
        from guidelines.services import record_guideline_use

        lifecycle.on_enter(WorkItem, [WorkStatus.DONE], record_guideline_use)
