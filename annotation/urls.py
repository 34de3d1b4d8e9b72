"""URL routes of the annotation app: workspace, curation, claim writing, admins' pages."""

from django.urls import path

from annotation.views import claims, curation, manage, workspace

app_name = "annotation"

urlpatterns = [
    path("", workspace.home, name="home"),
    path("curate/<str:arxiv_id>v<int:version>/", curation.curate, name="curate"),
    path(
        "curate/<str:arxiv_id>v<int:version>/tables/<int:element_id>/",
        curation.table_html,
        name="table_html",
    ),
    path("claims/next/", claims.next_task, name="next_task"),
    path("claims/tasks/<str:arxiv_id>v<int:version>/", claims.create_tasks, name="create_tasks"),
    path("claims/write/<int:item_id>/", claims.write, name="write"),
    path("claims/write/<int:item_id>/draft/", claims.save_draft, name="save_draft"),
    path("claims/write/<int:item_id>/suggest/", claims.suggest, name="suggest"),
    path("claims/write/<int:item_id>/context/", claims.context, name="write_context"),
    path("claims/pairs/<int:pair_id>/", claims.pair, name="pair"),
    path("manage/claims/", claims.overview, name="claims_overview"),
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
