"""URL routes of the annotation app: curation, claim writing, review, admins' pages. The
workspace home (`annotation:home`) joins them in workspace/urls.py, above every stage."""

from django.urls import path

import annotation.keys  # noqa: F401  (registers the <key:…>, <id:…> and <arxiv:…> converters)
from annotation.views import claims, curation, manage, review, stats

app_name = "annotation"

urlpatterns = [
    path("curate/<arxiv:arxiv_id>v<id:version>/", curation.curate, name="curate"),
    path(
        "curate/<arxiv:arxiv_id>v<id:version>/tables/<id:element_id>/",
        curation.table_html,
        name="table_html",
    ),
    path("claims/next/", claims.next_task, name="next_task"),
    path("claims/tasks/<arxiv:arxiv_id>v<id:version>/", claims.create_tasks, name="create_tasks"),
    path("claims/write/<key:item_key>/", claims.write, name="write"),
    path("claims/write/<key:item_key>/draft/", claims.save_draft, name="save_draft"),
    path("claims/write/<key:item_key>/release/", claims.release, name="release_task"),
    path("claims/write/<key:item_key>/suggest/", claims.suggest, name="suggest"),
    path("claims/write/<key:item_key>/context/", claims.context, name="write_context"),
    path("claims/write/<key:item_key>/warnings/", claims.warnings, name="write_warnings"),
    path("claims/pairs/<key:pair_key>/", claims.pair, name="pair"),
    path("claims/reperturb/next/", claims.next_reperturbation, name="next_reperturbation"),
    path("claims/reperturb/<key:item_key>/", claims.reperturb, name="reperturb"),
    path("claims/reperturb/<key:item_key>/draft/", claims.reperturb_draft, name="reperturb_draft"),
    path(
        "claims/reperturb/<key:item_key>/context/",
        claims.reperturb_context,
        name="reperturb_context",
    ),
    path(
        "claims/reperturb/<key:item_key>/suggest/",
        claims.reperturb_suggest,
        name="reperturb_suggest",
    ),
    path(
        "claims/reperturb/<key:item_key>/warnings/",
        claims.reperturb_warnings,
        name="reperturb_warnings",
    ),
    path(
        "claims/reperturb/<key:item_key>/images/<id:element_id>/",
        claims.reperturb_image,
        name="reperturb_image",
    ),
    path(
        "manage/claims/reperturb/<key:item_key>/reassign/",
        claims.reassign_reperturbation,
        name="reassign_reperturbation",
    ),
    path("review/<str:page>/next/", review.next_item, name="next_review"),
    path("review/annotate/<key:item_key>/", review.annotate, name="annotate"),
    path("review/adjudicate/<key:item_key>/", review.adjudicate, name="adjudicate"),
    path("review/items/<key:item_key>/draft/", review.save_draft, name="review_draft"),
    path("review/items/<key:item_key>/context/", review.context, name="review_context"),
    path("review/items/<key:item_key>/images/<id:element_id>/", review.image, name="review_image"),
    path("manage/review/", review.overview, name="review_overview"),
    path("manage/review/items/<key:item_key>/allow/", review.allow_expert, name="allow_expert"),
    path("manage/review/claims/<key:claim_key>/reopen/", review.reopen, name="reopen_claim"),
    path("manage/review/pairs/<key:pair_key>/drop/", review.drop, name="drop_pair"),
    path("agreement/", stats.agreement, name="agreement"),
    path("agreement.csv", stats.agreement_csv, name="agreement_csv"),
    path("manage/claims/", claims.overview, name="claims_overview"),
    path("manage/assignments/", manage.assignments, name="assignments"),
    path("manage/people/", manage.people, name="people"),
    path("manage/people/time.csv", manage.people_time_csv, name="people_time_csv"),
    path("manage/people/<id:user_id>/archive/", manage.archive_account, name="archive_account"),
    path("manage/people/<id:user_id>/", manage.expert, name="expert"),
    path("manage/people/<id:user_id>/profile/", manage.expert_profile, name="expert_profile"),
    path(
        "manage/people/<id:user_id>/publications/", manage.add_publication, name="add_publication"
    ),
    path(
        "manage/people/<id:user_id>/publications/<id:publication_id>/remove/",
        manage.remove_publication,
        name="remove_publication",
    ),
    path("manage/people/<id:user_id>/training/", manage.record_training, name="record_training"),
    path(
        "manage/people/<id:user_id>/reset-password/",
        manage.reset_password,
        name="reset_password",
    ),
]
