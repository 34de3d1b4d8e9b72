"""A refuted claim whose perturbation turned out true goes back to its writer (issue 7): the new
claim replaces the old one, which is kept, marked superseded; one open re-perturbation work item
per pair at most."""

import django.db.models.deletion
from django.db import migrations, models

KINDS = ["write", "evidence", "adjudicate", "validate", "baseline", "reperturb"]


class Migration(migrations.Migration):
    dependencies = [
        ("annotation", "0005_validation_kinds"),
    ]

    operations = [
        migrations.AlterModelOptions(
            name="claim",
            options={"ordering": ["pair", "label", "id"]},
        ),
        migrations.RemoveConstraint(model_name="claim", name="claim_one_per_label"),
        migrations.AddField(
            model_name="claim",
            name="replaces",
            field=models.OneToOneField(
                blank=True,
                help_text="The refuted claim whose perturbation turned out true, which this one "
                "replaces",
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="replaced_by",
                to="annotation.claim",
            ),
        ),
        migrations.AddField(
            model_name="claim",
            name="superseded_at",
            field=models.DateTimeField(
                blank=True, help_text="When a new perturbation replaced this claim", null=True
            ),
        ),
        migrations.AddConstraint(
            model_name="claim",
            constraint=models.UniqueConstraint(
                condition=models.Q(("superseded_at__isnull", True)),
                fields=("pair", "label"),
                name="claim_one_current_per_label",
            ),
        ),
        migrations.AddConstraint(
            model_name="claim",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    ("replaces__isnull", True), ("label", "refuted"), _connector="OR"
                ),
                name="claim_only_refuted_replaces",
            ),
        ),
        migrations.RemoveConstraint(model_name="workitem", name="workitem_kind"),
        migrations.AlterField(
            model_name="workitem",
            name="kind",
            field=models.CharField(
                choices=[
                    ("write", "write a claim pair"),
                    ("evidence", "annotate a claim blind"),
                    ("adjudicate", "adjudicate a disagreement"),
                    ("validate", "validate a final claim"),
                    ("baseline", "answer a claim blind (human baseline)"),
                    ("reperturb", "write a new perturbation (the last one turned out true)"),
                ],
                max_length=16,
            ),
        ),
        migrations.AddConstraint(
            model_name="workitem",
            constraint=models.CheckConstraint(
                condition=models.Q(("kind__in", KINDS)), name="workitem_kind"
            ),
        ),
        migrations.AddConstraint(
            model_name="workitem",
            constraint=models.UniqueConstraint(
                condition=models.Q(("kind", "reperturb"), ("status__in", ["open", "leased"])),
                fields=("pair",),
                name="workitem_one_open_reperturb_per_pair",
            ),
        ),
    ]
