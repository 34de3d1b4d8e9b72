from django.db import migrations, models

FINAL = ["unanimous", "adjudicated"]


def open_waiting_validations(apps, schema_editor):
    """Validations are opened when a claim becomes final now; final claims of before, still
    waiting for someone to press Next, get theirs here (named for the pair's validator, if it
    has one; else anyone eligible free of a role on the pair may take it)."""
    Claim = apps.get_model("annotation", "Claim")
    WorkItem = apps.get_model("annotation", "WorkItem")
    WorkEvent = apps.get_model("annotation", "WorkEvent")
    PairRole = apps.get_model("annotation", "PairRole")
    Validation = apps.get_model("validation", "Validation")
    waiting = (
        Claim.objects.filter(
            superseded_at__isnull=True,
            review__state__in=FINAL,
            review__final_label__in=["entailed", "refuted"],
            validation__isnull=True,
        )
        .exclude(pair__state="dropped")
        .exclude(label="refuted", review__final_label="entailed")
        .select_related("pair")
        .order_by("pair_id", "label")
    )
    for claim in waiting:
        pair = claim.pair
        validator = (
            PairRole.objects.filter(pair=pair, role="validator")
            .values_list("expert_id", flat=True)
            .first()
        )
        item = WorkItem.objects.create(
            kind="validate", paper_id=pair.paper_id, subfield_code=pair.subfield_code,
            pair=pair, claim=claim, assignee_id=validator,
        )
        WorkEvent.objects.create(
            machine="item", item=item, claim=claim, pair=pair, action="created",
            to_status="open", new={"kind": "validate", "assignee": validator,
                                   "subfield": pair.subfield_code},
            note="opened when validations began to open as claims become final",
        )
        Validation.objects.create(claim=claim, item=item)
        WorkEvent.objects.create(
            machine="validation", item=item, claim=claim, pair=pair, action="opened",
            to_status="pending",
        )


class Migration(migrations.Migration):

    dependencies = [
        ('validation', '0001_initial'),
        ('annotation', '0007_lifecycle'),
    ]

    operations = [
        migrations.AddField(
            model_name='validation',
            name='version',
            field=models.PositiveIntegerField(default=1),
        ),
        migrations.RunPython(open_waiting_validations, migrations.RunPython.noop),
    ]
