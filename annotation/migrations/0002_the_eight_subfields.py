"""The eight areas of SciVer's Table 5 as subfields (admins can add more)."""

from django.db import migrations

SUBFIELDS = [
    ("cs.CV", "Computer Vision and Pattern Recognition"),
    ("cs.CL", "Computation and Language"),
    ("cs.RO", "Robotics"),
    ("cs.SE", "Software Engineering"),
    ("cs.LG", "Machine Learning"),
    ("cs.AI", "Artificial Intelligence"),
    ("cs.IR", "Information Retrieval"),
    ("cs.CR", "Cryptography and Security"),
]


def add(apps, schema_editor):
    Subfield = apps.get_model("annotation", "Subfield")
    for order, (code, name) in enumerate(SUBFIELDS, start=1):
        Subfield.objects.get_or_create(code=code, defaults={"name": name, "order": order})


def remove(apps, schema_editor):
    Subfield = apps.get_model("annotation", "Subfield")
    Subfield.objects.filter(code__in=[code for code, _ in SUBFIELDS], publications=None).delete()


class Migration(migrations.Migration):
    dependencies = [("annotation", "0001_initial")]
    operations = [migrations.RunPython(add, remove)]
