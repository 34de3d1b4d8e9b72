"""Routes of the model in the loop (included by evaluation/urls.py)."""

from django.urls import path

import annotation.keys  # noqa: F401  (registers the <key:…> converter)
from evaluation.assist import views

urlpatterns = [
    path("manage/evaluation/assistant/", views.setting, name="assistant"),
    path("manage/evaluation/assistant/text-only/", views.text_only_share, name="text_share"),
    path("assist/items/<key:item_key>/text-check/", views.text_check, name="text_check"),
    path("assist/items/<key:item_key>/ideas/", views.ideas, name="ideas"),
]
