from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("validation", "0004_split_papers"),
    ]

    operations = [
        migrations.AddField(
            model_name="releaseexport",
            name="parquet",
            field=models.BooleanField(
                default=False,
                help_text="Also Parquet files with the images embedded (the Hub's viewer)",
            ),
        ),
    ]
