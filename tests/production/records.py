"""What the production shape's database holds after its run, as JSON on stdout.

Run with the deployment's environment (`python -m tests.production.records`), so it reads the
database through the production settings, as any `manage.py` command there would.
"""

from __future__ import annotations

import json
import os


def records(crawled_prefix: str) -> dict[str, object]:
    from django.core.files.storage import default_storage

    from jobs.models import Job
    from papers.models import CrawlRun, Element, Paper
    from validation.models import ReleaseExport

    crawled = Paper.objects.filter(arxiv_id__startswith=crawled_prefix).order_by("arxiv_id")
    tables = Element.objects.filter(
        paper__in=crawled.filter(status=Paper.Status.PARSED),
        kind=Element.Kind.TABLE,
        is_image_table=False,
    ).order_by("paper_id", "order")
    return {
        "jobs": [
            {
                "id": j.pk,
                "kind": j.kind,
                "status": j.status,
                "queue": j.queue,
                "rq_job_id": j.rq_job_id,
                "params": j.params,
                "error": j.error[:4000],
            }
            for j in Job.objects.order_by("pk")
        ],
        "crawl_runs": [
            {"id": r.pk, "status": r.status, "error": r.error, "counts": r.counts()}
            for r in CrawlRun.objects.order_by("pk")
        ],
        "crawled_papers": [
            {
                "id": p.pk,
                "paper": p.versioned_id,
                "status": p.status,
                "images_status": p.images_status,
                "licence": p.license_url,
            }
            for p in crawled
        ],
        "crawled_tables": [
            {
                "paper": e.paper.versioned_id,
                "anchor": e.anchor,
                "image": e.image.name,
                "stored": bool(e.image.name) and default_storage.exists(e.image.name),
                "renderer": e.image_renderer,
                "error": e.image_error,
            }
            for e in tables.select_related("paper")
        ],
        "exports": [
            {
                "id": x.pk,
                "job_status": x.job.status if x.job else None,
                "archive": x.archive,
                "files": len((x.manifest or {}).get("files", [])),
            }
            for x in ReleaseExport.objects.select_related("job").order_by("pk")
        ],
    }


def main() -> None:
    import django

    django.setup()
    print(json.dumps(records(os.environ.get("CRAWLED_PREFIX", "2410."))))


if __name__ == "__main__":
    main()
