"""The pages of API tokens (api/pages.py): a person's own, and the admins' view of everyone's.
Included by config/urls.py at the site's root."""

from django.urls import path

from api.pages import all_tokens, my_tokens

urlpatterns = [
    path("accounts/api-tokens/", my_tokens, name="api_tokens"),
    path("manage/api-tokens/", all_tokens, name="manage_api_tokens"),
]
