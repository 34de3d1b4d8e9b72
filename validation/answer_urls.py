"""Route of "edit my last answer" for a validation."""

from django.urls import path

from validation import answer_views

app_name = "validation_answers"

urlpatterns = [
    path("validate/<key:item_key>/edit/", answer_views.edit_validation, name="edit"),
]
