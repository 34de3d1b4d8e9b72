"""URL routes of the papers app."""

from django.urls import path

from papers import views

app_name = "papers"

urlpatterns = [
    path("papers/", views.paper_list, name="list"),
    path("papers/<str:arxiv_id>v<int:version>/", views.paper_detail, name="detail"),
]
