"""The workspace's route. It keeps the `annotation:home` name every page links to, so it joins
the annotation app's routes in that one namespace rather than start a second one."""

from django.urls import path

from annotation import urls as annotation_urls
from workspace import papers, views

app_name = annotation_urls.app_name

urlpatterns = [
    path("", views.home, name="home"),
    path("manage/archive/", papers.archive, name="archive"),
    *annotation_urls.urlpatterns,
]
