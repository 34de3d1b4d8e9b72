"""URL routes of the crawl pages (included under "crawl/")."""

from django.urls import path

from papers.crawl import views

app_name = "crawl"

urlpatterns = [
    path("", views.run_list, name="list"),
    path("runs/", views.run_rows, name="runs"),
    path("<int:run_id>/", views.run_detail, name="detail"),
    path("<int:run_id>/progress/", views.run_progress, name="progress"),
    path("<int:run_id>/stop/", views.run_stop, name="stop"),
    path("<int:run_id>/resume/", views.run_resume, name="resume"),
]
