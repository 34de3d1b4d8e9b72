from django.apps import AppConfig


class GuidelinesConfig(AppConfig):
    name = "guidelines"
    verbose_name = "Guidelines and flags"

    def ready(self) -> None:
        # Every submitted work item keeps the guideline version it was done under, set in the
        # UPDATE that marks it done: the stages below never import this app.
        from annotation import lifecycle
        from annotation.models import WorkItem, WorkStatus
        from guidelines.services import guideline_in_force

        lifecycle.on_enter_set(WorkItem, [WorkStatus.DONE], guideline_in_force)
