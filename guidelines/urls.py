"""Routes of the guideline pages and of flags."""

from django.urls import path

from guidelines import views

app_name = "guidelines"

urlpatterns = [
    path("guidelines/", views.current, name="current"),
    path("guidelines/versions/", views.versions, name="versions"),
    path("guidelines/v<id:number>/", views.version, name="version"),
    path("guidelines/edit/", views.edit, name="edit"),
    path("flags/", views.queue, name="queue"),
    path("flags/<id:pk>/", views.flag_detail, name="flag"),
    path("flags/item/<key:item_key>/", views.flag_item, name="flag_item"),
    path("flags/paper/<id:paper_id>/", views.flag_paper, name="flag_paper"),
]
