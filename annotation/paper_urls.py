"""URL routes of the paper pages, in the `papers` namespace the templates link to."""

from django.urls import path

from annotation.views import papers

app_name = "papers"

urlpatterns = [
    path("papers/", papers.paper_list, name="list"),
    path("papers/<str:arxiv_id>v<int:version>/", papers.paper_detail, name="detail"),
]
