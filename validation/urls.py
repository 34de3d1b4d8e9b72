"""URL routes of the validation app: validation, baseline, statistics, splits and releases."""

from django.urls import path

from validation import views

app_name = "validation"

urlpatterns = [
    path("validate/next/", views.next_validation, name="next"),
    path("validate/<int:item_id>/", views.validate, name="validate"),
    path(
        "validate/<int:item_id>/images/<int:element_id>/", views.element_image, name="element_image"
    ),
    path("baseline/next/", views.baseline_next, name="baseline_next"),
    path("baseline/answer/<int:item_id>/", views.baseline_answer, name="baseline_answer"),
    path("manage/validation/", views.overview, name="overview"),
    path("manage/validation/reopen/<int:claim_id>/", views.reopen, name="reopen"),
    path("manage/statistics/", views.statistics, name="statistics"),
    path("manage/baseline/", views.baseline, name="baseline"),
    path("manage/baseline/<int:study_id>/", views.baseline_study, name="baseline_study"),
    path("manage/releases/", views.releases, name="releases"),
    path("manage/releases/splits/<int:split_id>/export/", views.export, name="export"),
    path("manage/releases/exports/<int:export_id>/", views.export_status, name="export_status"),
    path("manage/releases/exports/<int:export_id>/download/", views.download, name="download"),
]
