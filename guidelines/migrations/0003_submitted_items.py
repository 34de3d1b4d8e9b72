"""The version each item was done under is now `WorkItem.guideline` (annotation 0011 copied
the uses there): their table goes, and the admin lists the submitted items instead (a proxy,
no table)."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("annotation", "0011_workitem_guideline"),
        ("guidelines", "0002_first_version"),
    ]

    operations = [
        migrations.CreateModel(
            name="SubmittedItem",
            fields=[],
            options={
                "verbose_name": "submitted item",
                "proxy": True,
                "indexes": [],
                "constraints": [],
            },
            bases=("annotation.workitem",),
        ),
        migrations.DeleteModel(name="GuidelineUse"),
    ]
