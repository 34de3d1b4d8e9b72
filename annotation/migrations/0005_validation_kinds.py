"""Work items for validation and the human-baseline study (issue 7)."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("annotation", "0004_review"),
    ]

    operations = [
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
                ],
                max_length=16,
            ),
        ),
        migrations.AddConstraint(
            model_name="workitem",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    ("kind__in", ["write", "evidence", "adjudicate", "validate", "baseline"])
                ),
                name="workitem_kind",
            ),
        ),
    ]
