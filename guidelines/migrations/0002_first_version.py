"""Version 1 of the guidelines, from the texts the app already showed (guidelines.seed)."""

from django.db import migrations


def seed(apps, schema_editor):
    from guidelines.seed import first_sections  # noqa: PLC0415 - a migration reads its seed when it runs

    GuidelineVersion = apps.get_model("guidelines", "GuidelineVersion")
    if not GuidelineVersion.objects.exists():
        GuidelineVersion.objects.create(
            number=1,
            sections=first_sections(),
            note="First version: the subset guide, the evidence rule and the validation "
            "checklist the pages showed.",
        )


class Migration(migrations.Migration):
    dependencies = [("guidelines", "0001_initial")]

    operations = [migrations.RunPython(seed, migrations.RunPython.noop)]
