"""`evaluate_release DIR --part P (--responses FILE | --endpoint URL --model NAME) --out FILE`:
score a model's responses on a release part by our reading and SciVer's, with breakdowns."""

from __future__ import annotations

import getpass
import json
import os
import sys
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils import timezone

from annotation.errors import too_long
from evaluation import services
from evaluation.client import ChatClient, ModelSettings
from evaluation.models import RunSource
from evaluation.prompting import ContextSetting, Template, plan_requests
from evaluation.reading import official_reading, read_response
from evaluation.release import PARTS, EvaluationError, load_part
from evaluation.report import percent, report
from evaluation.responses import read_responses
from evaluation.retrieval import RETRIEVERS, get_retriever
from evaluation.running import ResponseCache, ask_model, estimate
from evaluation.scoring import RESAMPLES
from evaluation.selectors import human_baseline


class Command(BaseCommand):
    help = (
        "Evaluate a model on one part of a release: score responses produced elsewhere "
        "(SciVer's main.py output or JSON Lines of request_id/response), or ask an "
        "OpenAI-compatible endpoint; writes one line per record and prints the breakdowns."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("dir", help="the release folder (DIR/SciVer)")
        parser.add_argument("--part", required=True, choices=PARTS)
        source = parser.add_mutually_exclusive_group(required=True)
        source.add_argument("--responses", type=Path, help="responses produced elsewhere")
        source.add_argument("--endpoint", help="OpenAI-compatible API base URL (…/v1)")
        parser.add_argument(
            "--out", type=Path, help="one JSON line per record (not with --dry-run)"
        )
        parser.add_argument("--model", help="the model name to ask (with --endpoint)")
        parser.add_argument(
            "--labels",
            type=Path,
            help="the hidden test labels file (default: "
            "the one the manifest names, beside the release folder)",
        )
        parser.add_argument(
            "--api-key-env",
            default="OPENAI_API_KEY",
            help="environment variable holding the API key (default %(default)s)",
        )
        parser.add_argument(
            "--prompt",
            type=Path,
            help="prompt template (default: evaluation/prompts/chain_of_thought.txt)",
        )
        parser.add_argument(
            "--cache", type=Path, help="response cache folder (default EVALUATION_CACHE_DIR)"
        )
        parser.add_argument("--concurrency", type=int, default=None)
        parser.add_argument("--timeout", type=float, default=None, help="seconds per request")
        parser.add_argument(
            "--max-tries",
            type=int,
            default=4,
            help="tries per request (the openai package's retries: back-off, Retry-After)",
        )
        parser.add_argument("--temperature", type=float, default=0.0)
        parser.add_argument("--max-tokens", type=int, default=2048)
        parser.add_argument(
            "--context",
            choices=("full", "retrieved"),
            default="full",
            help="full: the record's context as SciVer reads it; retrieved: "
            "only the top --k units --retriever finds for the claim (RAG)",
        )
        parser.add_argument(
            "--retriever",
            default="bm25",
            choices=tuple(RETRIEVERS),
            help="with --context retrieved (default %(default)s)",
        )
        parser.add_argument(
            "--k",
            type=int,
            default=5,
            help="units retrieved per claim, with --context retrieved (5)",
        )
        parser.add_argument(
            "--dry-run", action="store_true", help="count requests, images and tokens; send nothing"
        )
        parser.add_argument(
            "--yes",
            action="store_true",
            help="send hidden test claims to a remote endpoint without asking",
        )
        parser.add_argument("--seed", type=int, default=0, help="bootstrap seed")
        parser.add_argument("--resamples", type=int, default=RESAMPLES)
        parser.add_argument("--summary", type=Path, help="also write the breakdowns as JSON")
        parser.add_argument(
            "--save", action="store_true", help="record the run for the comparison page"
        )

    def handle(self, *args, **options) -> None:
        try:
            self._handle(options)
        except EvaluationError as exc:
            raise CommandError(str(exc)) from exc

    def _handle(self, options: dict) -> None:
        if not options["dry_run"] and options["out"] is None:
            raise CommandError("--out FILE.jsonl is required (or --dry-run)")
        if options["endpoint"] and not options["model"]:
            raise CommandError("--endpoint needs --model NAME")
        if options["resamples"] < 1:
            raise CommandError("--resamples must be at least 1")
        if options["context"] == "retrieved" and not options["endpoint"]:
            raise CommandError("--context retrieved is for --endpoint: it decides what is sent")
        named = options["model"] or (options["responses"].stem if options["responses"] else "")
        if options["save"] and (problem := too_long("model", named, services.MAX_MODEL)):
            # Before anything is asked or written: a recorded run refuses it (never cut).
            raise CommandError(
                f"Nothing was run: {problem} (--model names it, else the responses file's name)"
            )
        part = load_part(Path(options["dir"]), options["part"], labels=options["labels"])
        extra: dict = {}
        if options["responses"]:
            if options["dry_run"]:
                raise CommandError("--dry-run is for --endpoint: a responses file sends nothing")
            responses = read_responses(options["responses"], part.items)
            model = options["model"] or options["responses"].stem
            source = RunSource.RESPONSES
        else:
            responses, extra = self._ask(part, options)
            if responses is None:
                return
            model, source = options["model"], RunSource.ENDPOINT
        missing = sum(item.request_id not in responses for item in part.items)
        evaluation = services.evaluate(
            part, responses, seed=options["seed"], resamples=options["resamples"]
        )
        out: Path = options["out"]
        out.parent.mkdir(parents=True, exist_ok=True)
        with open(out, "w", encoding="utf-8") as handle:
            for outcome in evaluation.outcomes:
                handle.write(json.dumps(outcome.line(), ensure_ascii=False) + "\n")
        human = human_baseline()
        overall = evaluation.breakdowns["overall"][0]
        heading = (
            f"{part.name}, {part.part}: {len(part.items)} records, "
            f"{len(part.items) - missing} responses ({missing} missing), model {model}"
            f"{', ' + extra['context_label'] if extra.get('context') == 'retrieved' else ''}\n"
            f"accuracy by our reading {percent(overall.accuracy)} % "
            f"({overall.unanswered} without a readable answer, counted wrong); "
            f"by SciVer's rule {percent(overall.official_accuracy)} %; "
            f"the readings differ on {self._differ(evaluation)} responses"
        )
        self.stdout.write(
            report(
                evaluation.breakdowns, human=human if human.overall[1] else None, heading=heading
            )
        )
        self.stdout.write(f"wrote {len(evaluation.outcomes)} lines to {out}")
        if options["summary"]:
            options["summary"].write_text(json.dumps(evaluation.summary(), indent=2) + "\n")
        if options["save"]:
            extra.pop("context_label", None)
            run = services.record_run(evaluation=evaluation, model=model, source=source, **extra)
            self.stdout.write(f"recorded as run {run.pk} (Releases → Model evaluation)")

    @staticmethod
    def _differ(evaluation) -> int:
        return sum(
            read_response(o.response) != official_reading(o.response) for o in evaluation.outcomes
        )

    @staticmethod
    def _confirmed(part, endpoint: str, options: dict) -> bool:
        """Whether hidden claims may go to an endpoint that is not this machine: --yes, or yes
        at the prompt; CommandError otherwise (nothing sent)."""
        if options["yes"]:
            return True
        question = (
            f"The {part.part} labels of this release are hidden, and {endpoint} is not this "
            "machine: sending its claims there would leak the hidden test set and "
            "contaminate the benchmark."
        )
        if not sys.stdin.isatty():
            raise CommandError(f"{question} Pass --yes to send them anyway.")
        if input(f"{question} Send them? [y/N] ").strip().lower() not in ("y", "yes"):
            raise CommandError("Nothing was sent.")
        return True

    def _ask(self, part, options: dict):
        endpoint = options["endpoint"]
        template = Template.load(options["prompt"])
        model_settings = ModelSettings(
            temperature=options["temperature"], max_tokens=options["max_tokens"]
        )
        leaves = services.contaminates(part, endpoint)
        confirmed = leaves and not options["dry_run"] and self._confirmed(part, endpoint, options)
        client = ChatClient(
            endpoint,
            options["model"],
            api_key=os.environ.get(options["api_key_env"], ""),
            settings=model_settings,
            max_tries=options["max_tries"],
            timeout=options["timeout"] or settings.EVALUATION_TIMEOUT_SECONDS,
            # Unconfirmed, hidden claims are sent only while the endpoint is this machine.
            local_only=part.hidden and not confirmed,
        )
        cache = ResponseCache(options["cache"] or settings.EVALUATION_CACHE_DIR)
        context = ContextSetting()
        if options["context"] == "retrieved":
            context = ContextSetting(get_retriever(options["retriever"]).name, options["k"])
        planned = plan_requests(part, template, context)
        if options["dry_run"]:
            guess = estimate(planned, client=client, template=template, cache=cache)
            self.stdout.write(f"dry run: nothing sent to {client.url} ({context.label})")
            for line in guess.lines():
                self.stdout.write(line)
            return None, {}
        when = timezone.now()
        if confirmed:
            how = "--yes" if options["yes"] else "answered yes at the prompt"
            self.stdout.write(
                f"hidden {part.part} claims sent to {endpoint} (not this machine): confirmed by "
                f"{getpass.getuser()} ({how}) at {when:%Y-%m-%d %H:%M:%S %Z}"
            )

        def progress(done: int, total: int) -> None:
            self.stderr.write(f"\ranswered {done}/{total}", ending="")

        result = ask_model(
            planned,
            client=client,
            template=template,
            cache=cache,
            concurrency=options["concurrency"] or settings.EVALUATION_CONCURRENCY,
            progress=progress,
        )
        self.stderr.write("")
        self.stdout.write(
            f"{result.asked} requests sent to {client.url} ({context.label}), "
            f"{len(result.responses) - result.asked} answers from the cache"
        )
        if result.failed:
            self.stderr.write(
                self.style.WARNING(
                    f"{len(result.failed)} requests failed after every retry (they count as no "
                    f"answer): run the same command again to ask only those; first: "
                    f"{next(iter(result.failed.values()))}"
                )
            )
        extra = {
            "hidden_confirmed_at": when if confirmed else None,
            "endpoint_url": endpoint,
            "prompt_version": template.version,
            "settings": model_settings.as_dict(),
            **services.context_fields(context),
            "context_label": context.label,
        }
        return result.responses, extra
