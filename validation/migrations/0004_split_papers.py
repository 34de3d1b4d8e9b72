from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("validation", "0003_split_licences"),
    ]

    operations = [
        migrations.AddField(
            model_name="splitversion",
            name="papers",
            field=models.JSONField(
                blank=True,
                default=dict,
                help_text="Papers per part, e.g. {'validation': 327, 'test': 786}",
            ),
        ),
        migrations.AddField(
            model_name="splitversion",
            name="shared_papers_allowed",
            field=models.BooleanField(
                default=False,
                help_text="Made with --allow-shared-papers: a paper may have pairs in both parts "
                "(only where no paper-disjoint draw exists)",
            ),
        ),
    ]
