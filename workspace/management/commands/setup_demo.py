"""python manage.py setup_demo : import the bundled sample papers and create demo accounts."""

from __future__ import annotations

import os

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandParser

from papers.assets import FolderAssets
from papers.importing import PaperImportError, import_paper
from papers.local_pages import locate_page
from papers.models import Paper
from workspace.demo.experts import create_demo_experts

DEMO_ACCOUNTS = [
    # (username, password, is_staff)
    ("admin", "sciver-admin", True),
    ("alice", "sciver-demo", False),
    ("bob", "sciver-demo", False),
    ("carol", "sciver-demo", False),
    ("dave", "sciver-demo", False),
]


def sign_in_address(run_addr: str | None = None) -> str:
    """The address `make run` serves on, from RUN_ADDR as scripts/serve.sh passes it to
    runserver ("port", "host:port" or "[v6]:port"; default 127.0.0.1:8000). A server
    listening on every interface (0.0.0.0, ::) is opened on this machine as 127.0.0.1."""
    value = (os.environ.get("RUN_ADDR", "") if run_addr is None else run_addr).strip()
    host, port = "127.0.0.1", "8000"
    if value.isascii() and value.isdecimal():
        port = value
    elif value.startswith("["):
        inside, _, rest = value[1:].partition("]")
        host, port = f"[{inside}]", rest.lstrip(":") or port
    elif ":" in value:
        host, port = value.rsplit(":", 1)
    elif value:
        host = value
    if host in ("0.0.0.0", "[::]", "0", ""):
        host = "127.0.0.1"
    return f"http://{host}:{port}/"


class Command(BaseCommand):
    help = "Import the bundled sample papers (once) and create the demo accounts (once)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--no-accounts", action="store_true")

    def handle(self, *args, **options) -> None:
        samples_file = settings.SAMPLE_PAPERS_DIR / "SAMPLES"
        slugs = [
            line.strip()
            for line in samples_file.read_text().splitlines()
            if line.strip() and not line.startswith("#")
        ]
        for slug in slugs:
            page = locate_page(settings.SAMPLE_PAPERS_DIR / slug)
            existing = Paper.objects.filter(
                arxiv_id=page.arxiv_id, version=page.version, status=Paper.Status.PARSED
            ).first()
            if existing is not None:
                self.stdout.write(f"sample {existing.versioned_id} already imported")
                continue
            try:
                result = import_paper(
                    html=page.html_path.read_bytes(),
                    page_url=page.html_path.resolve().as_uri(),
                    assets=FolderAssets(page.folder),
                    arxiv_id=page.arxiv_id,
                    version=page.version,
                    metadata=page.metadata,
                )
            except PaperImportError as exc:
                self.stderr.write(self.style.ERROR(f"sample {slug}: {exc.reason}"))
                continue
            self.stdout.write(self.style.SUCCESS(f"sample {result.summary()}"))
        if options["no_accounts"]:
            return
        users = get_user_model()
        lines = []
        for username, password, staff in DEMO_ACCOUNTS:
            user, created = users.objects.get_or_create(
                username=username, defaults={"is_staff": staff, "is_superuser": staff}
            )
            if created:
                user.set_password(password)
                user.save()
            note = "" if created or user.check_password(password) else " (password changed since)"
            role = "admin" if staff else "annotator"
            lines.append(f"  {role:<10} {username:<8} password: {password}{note}")
        self.stdout.write(f"\nDemo accounts (sign in at {sign_in_address()}):")
        self.stdout.write("\n".join(lines) + "\n")

        self.stdout.write("Demo expert profiles:\n" + "\n".join(create_demo_experts()) + "\n")
