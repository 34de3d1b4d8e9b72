"""Work items get a random place in the shuffled queue (`WorkItem.shuffle_key`), indexed with
kind and status for the lease's walk (and with the assignee, for the items named for one
expert); existing items draw theirs in one UPDATE."""

from django.db import migrations, models

import annotation.models.work


def draw_keys(apps, schema_editor):
    # A random key in [0, 2**62) per row, drawn by the database (one statement, not a save per
    # item): random() is a float in [0, 1) on PostgreSQL, a 64-bit integer on SQLite.
    table = apps.get_model("annotation", "WorkItem")._meta.db_table
    vendor = schema_editor.connection.vendor
    if vendor == "postgresql":
        draw = "floor(random() * 4611686018427387904)::bigint"
    elif vendor == "sqlite":
        draw = "(random() & 4611686018427387903)"
    else:
        raise NotImplementedError(vendor)
    schema_editor.execute(f"UPDATE {schema_editor.quote_name(table)} SET shuffle_key = {draw}")


class Migration(migrations.Migration):
    dependencies = [
        ("annotation", "0013_claimpair_reference_note"),
    ]

    operations = [
        migrations.AddField(
            model_name="workitem",
            name="shuffle_key",
            field=models.BigIntegerField(null=True),
        ),
        migrations.RunPython(draw_keys, migrations.RunPython.noop),
        migrations.AlterField(
            model_name="workitem",
            name="shuffle_key",
            field=models.BigIntegerField(default=annotation.models.work.draw_shuffle_key),
        ),
        migrations.AddIndex(
            model_name="workitem",
            index=models.Index(
                fields=["kind", "status", "shuffle_key"], name="workitem_lease_walk"
            ),
        ),
        migrations.AddIndex(
            model_name="workitem",
            index=models.Index(
                fields=["assignee", "kind", "status", "shuffle_key"], name="workitem_named_walk"
            ),
        ),
    ]
