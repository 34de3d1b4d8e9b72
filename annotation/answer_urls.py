"""Routes of "edit my last answer" (second annotation and adjudication)."""

from django.urls import path

from annotation.views import answers

app_name = "answers"

urlpatterns = [
    path("review/items/<key:item_key>/edit/", answers.edit_answer, name="edit"),
]
