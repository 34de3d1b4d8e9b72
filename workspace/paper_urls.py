"""URL routes of the paper pages, in the `papers` namespace the templates link to."""

from django.urls import path

import annotation.keys  # noqa: F401  (registers the <id:…> and <arxiv:…> converters)
from workspace import papers

app_name = "papers"

urlpatterns = [
    path("papers/", papers.paper_list, name="list"),
    path("papers/<arxiv:arxiv_id>v<id:version>/", papers.paper_detail, name="detail"),
]
