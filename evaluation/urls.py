"""URL routes of the evaluation app: runs, their outcomes, and comparisons."""

from django.urls import path

import annotation.keys  # noqa: F401  (registers the <id:…> converter)
from evaluation import views
from evaluation.assist import urls as assist_urls
from evaluation.errors import views as errors

app_name = "evaluation"

urlpatterns = [
    path("manage/evaluation/", views.runs, name="runs"),
    path("manage/evaluation/runs/<id:run_id>/", views.run, name="run"),
    path("manage/evaluation/runs/<id:run_id>/cancel/", views.cancel, name="cancel"),
    path(
        "manage/evaluation/runs/<id:run_id>/outcomes.csv", views.outcomes_csv, name="outcomes_csv"
    ),
    path(
        "manage/evaluation/runs/<id:run_id>/outcomes.json",
        views.outcomes_json,
        name="outcomes_json",
    ),
    path("manage/evaluation/compare/", views.compare, name="compare"),
    path("manage/evaluation/compare.csv", views.compare_csv, name="compare_csv"),
    path("manage/evaluation/compare.json", views.compare_json, name="compare_json"),
    # Error analysis: the admin's pages, then the taggers'.
    path(
        "manage/evaluation/runs/<id:run_id>/errors/start/",
        errors.start,
        name="start_error_analysis",
    ),
    path("manage/evaluation/errors/", errors.analyses, name="error_analyses"),
    path("manage/evaluation/errors/<id:analysis_id>/", errors.analysis, name="error_analysis"),
    path(
        "manage/evaluation/errors/<id:analysis_id>/tags.csv",
        errors.tags_csv,
        name="error_tags_csv",
    ),
    path(
        "manage/evaluation/errors/<id:analysis_id>/cases.csv",
        errors.cases_csv,
        name="error_cases_csv",
    ),
    path(
        "manage/evaluation/errors/<id:analysis_id>/analysis.json",
        errors.analysis_json,
        name="error_analysis_json",
    ),
    path("errors/", errors.my_cases, name="my_error_cases"),
    path("errors/cases/<id:case_id>/", errors.case, name="error_case"),
    path(
        "errors/cases/<id:case_id>/images/<id:element_id>/",
        errors.case_image,
        name="error_case_image",
    ),
]

# The model in the loop: its setting, the text-only check and perturbation ideas.
urlpatterns += assist_urls.urlpatterns
