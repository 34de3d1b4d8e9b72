"""The guideline version an item was done under moves onto the item (`WorkItem.guideline`), so
that the UPDATE marking it done sets it; each recorded use is copied over, then guidelines 0003
drops their table. Backwards, the uses are written again from the items."""

import django.db.models.deletion
from django.db import migrations, models
from django.db.models import OuterRef, Subquery


def uses_to_items(apps, schema_editor):
    WorkItem = apps.get_model("annotation", "WorkItem")
    GuidelineUse = apps.get_model("guidelines", "GuidelineUse")
    version = GuidelineUse.objects.filter(item_id=OuterRef("pk")).values("version_id")[:1]
    WorkItem.objects.filter(pk__in=GuidelineUse.objects.values("item_id")).update(
        guideline_id=Subquery(version)
    )


def items_to_uses(apps, schema_editor):
    """One use per item with a version, dated when the item was done (a use was written then),
    into the table guidelines 0003 has just made again, empty. An item that had a use without a
    version cannot be told from one that had none: it gets none."""
    WorkItem = apps.get_model("annotation", "WorkItem")
    GuidelineUse = apps.get_model("guidelines", "GuidelineUse")
    done = WorkItem.objects.filter(guideline__isnull=False)
    GuidelineUse.objects.bulk_create(
        (
            GuidelineUse(item_id=item_id, version_id=version_id)
            for item_id, version_id in done.values_list("pk", "guideline_id").iterator()
        ),
        batch_size=1000,
    )
    done_at = WorkItem.objects.filter(pk=OuterRef("item_id")).values("done_at")[:1]
    GuidelineUse.objects.filter(item__done_at__isnull=False).update(at=Subquery(done_at))


class Migration(migrations.Migration):
    dependencies = [
        ("annotation", "0010_archiving"),
        ("guidelines", "0002_first_version"),
    ]

    operations = [
        migrations.AddField(
            model_name="workitem",
            name="guideline",
            field=models.ForeignKey(
                blank=True,
                help_text="The guideline version in force when the item was submitted",
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="items",
                to="guidelines.guidelineversion",
            ),
        ),
        migrations.RunPython(uses_to_items, items_to_uses),
    ]
