"""URL routes of the validation app: validation, baseline, statistics, splits and releases."""

from django.urls import path

import annotation.keys  # noqa: F401  (registers the <key:…> and <id:…> converters)
from validation import views

app_name = "validation"

urlpatterns = [
    path("validate/next/", views.next_validation, name="next"),
    path("validate/<key:item_key>/", views.validate, name="validate"),
    path(
        "validate/<key:item_key>/images/<id:element_id>/",
        views.element_image,
        name="element_image",
    ),
    path("baseline/next/", views.baseline_next, name="baseline_next"),
    path("baseline/answer/<key:item_key>/", views.baseline_answer, name="baseline_answer"),
    path("manage/validation/", views.overview, name="overview"),
    path("manage/validation/reopen/<key:claim_key>/", views.reopen, name="reopen"),
    path("manage/statistics/", views.statistics, name="statistics"),
    path("manage/baseline/", views.baseline, name="baseline"),
    path("manage/baseline/<id:study_id>/", views.baseline_study, name="baseline_study"),
    path("manage/releases/", views.releases, name="releases"),
    path("manage/releases/splits/<id:split_id>/export/", views.export, name="export"),
    path("manage/releases/exports/<id:export_id>/", views.export_status, name="export_status"),
    path("manage/releases/exports/<id:export_id>/download/", views.download, name="download"),
]
