# Opaque keys for work items, claims and pairs; roles on claims (the blindness rule).

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

import annotation.keys


def fill_keys(apps, schema_editor):
    for name in ("WorkItem", "Claim", "ClaimPair"):
        model = apps.get_model("annotation", name)
        rows = list(model.objects.filter(key__isnull=True).only("id"))
        for row in rows:
            row.key = annotation.keys.new_key()
        model.objects.bulk_update(rows, ["key"], batch_size=500)


KIND_OF_ROLE = {"evidence": "evidence", "adjudicator": "adjudicate", "validator": "validate"}


def roles_on_claims(apps, schema_editor):
    """A role other than writing was held on the whole pair: it now names the claims the
    expert's items were on (all the pair's claims where no item says, the cautious reading)."""
    PairRole = apps.get_model("annotation", "PairRole")
    WorkItem = apps.get_model("annotation", "WorkItem")
    Claim = apps.get_model("annotation", "Claim")
    for role in list(PairRole.objects.exclude(role="writer")):
        items = WorkItem.objects.filter(pair_id=role.pair_id, kind=KIND_OF_ROLE[role.role],
                                        claim__isnull=False)
        mine = items.filter(
            models.Q(holder_id=role.expert_id) | models.Q(done_by_id=role.expert_id)
            | models.Q(assignee_id=role.expert_id)
        )
        claims = sorted(set(mine.values_list("claim_id", flat=True))) or sorted(
            Claim.objects.filter(pair_id=role.pair_id).values_list("id", flat=True)
        )
        for claim_id in claims:
            PairRole.objects.create(pair_id=role.pair_id, claim_id=claim_id,
                                    expert_id=role.expert_id, role=role.role)
        role.delete()


def key_field(null: bool):
    return models.CharField(
        default=None if null else annotation.keys.new_key, null=null, editable=False,
        help_text="Opaque identifier used in URLs and pages", max_length=22, unique=not null,
    )


class Migration(migrations.Migration):
    dependencies = [
        ("annotation", "0007_lifecycle"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(model_name="claim", name="key", field=key_field(True)),
        migrations.AddField(model_name="claimpair", name="key", field=key_field(True)),
        migrations.AddField(model_name="workitem", name="key", field=key_field(True)),
        migrations.RunPython(fill_keys, migrations.RunPython.noop),
        migrations.AlterField(model_name="claim", name="key", field=key_field(False)),
        migrations.AlterField(model_name="claimpair", name="key", field=key_field(False)),
        migrations.AlterField(model_name="workitem", name="key", field=key_field(False)),
        migrations.RemoveConstraint(model_name="pairrole", name="pairrole_one_role_per_expert"),
        migrations.AddField(
            model_name="pairrole",
            name="claim",
            field=models.ForeignKey(blank=True, null=True,
                                    on_delete=django.db.models.deletion.PROTECT,
                                    related_name="roles", to="annotation.claim"),
        ),
        migrations.RunPython(roles_on_claims, migrations.RunPython.noop),
        migrations.AddField(
            model_name="subfield",
            name="shared_second_annotator",
            field=models.BooleanField(default=False, help_text="With a single eligible expert besides the writer, give them both claims of a pair (flagged: not blind, reported apart) instead of waiting for an admin"),
        ),
        migrations.AddConstraint(
            model_name="pairrole",
            constraint=models.UniqueConstraint(condition=models.Q(("claim__isnull", True)), fields=("pair", "expert"), name="pairrole_one_pair_role_per_expert"),
        ),
        migrations.AddConstraint(
            model_name="pairrole",
            constraint=models.UniqueConstraint(condition=models.Q(("claim__isnull", False)), fields=("claim", "expert"), name="pairrole_one_claim_role_per_expert"),
        ),
        migrations.AddConstraint(
            model_name="pairrole",
            constraint=models.CheckConstraint(condition=models.Q(models.Q(("claim__isnull", True), ("role", "writer")), models.Q(models.Q(("role", "writer"), _negated=True), ("claim__isnull", False)), _connector="OR"), name="pairrole_writer_pair_others_claim"),
        ),
    ]
