"""URL routes of the annotation app: workspace, curation, and the admins' pages."""

from django.urls import path

from annotation.views import curation, manage, workspace

app_name = "annotation"

urlpatterns = [
    path("", workspace.home, name="home"),
    path("curate/<str:arxiv_id>v<int:version>/", curation.curate, name="curate"),
    path(
        "curate/<str:arxiv_id>v<int:version>/tables/<int:element_id>/",
        curation.table_html,
        name="table_html",
    ),
    path("manage/assignments/", manage.assignments, name="assignments"),
    path("manage/people/", manage.people, name="people"),
    path("manage/people/<int:user_id>/", manage.expert, name="expert"),
    path("manage/people/<int:user_id>/profile/", manage.expert_profile, name="expert_profile"),
    path(
        "manage/people/<int:user_id>/publications/", manage.add_publication, name="add_publication"
    ),
    path(
        "manage/people/<int:user_id>/publications/<int:publication_id>/remove/",
        manage.remove_publication,
        name="remove_publication",
    ),
    path("manage/people/<int:user_id>/training/", manage.record_training, name="record_training"),
    path(
        "manage/people/<int:user_id>/reset-password/",
        manage.reset_password,
        name="reset_password",
    ),
]
