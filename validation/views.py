"""Validation pages: the validator's page, the admins' overview and re-open, statistics, the
human-baseline study, and splits with release exports (thin: parse, call a service, render)."""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.http import FileResponse, Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from annotation import access, lists
from annotation import inputs as parse
from annotation.errors import AnnotationError
from annotation.evidence import rule_text
from annotation.inputs import MAX_TEXT, Values
from annotation.models import Claim, CuratedElement, Subset, WorkItem, WorkKind
from annotation.queue import work
from annotation.queue.takers import Takers, takers
from annotation.views import refusals
from annotation.views.common import (
    NextStage,
    after_submission,
    item_image,
    next_view,
    refused_text,
)
from annotation.views.work_page import WorkItemPage
from annotation.writing import warnings as claim_warnings
from papers.access import staff_required
from papers.licences import KNOWN_LICENCES, REDISTRIBUTABLE
from papers.models import Paper
from validation import selectors, services, stats
from validation.audit import pool as audit_pool
from validation.audit.plot import artifact_context
from validation.baseline import services as baseline_services
from validation.baseline.report import latest_human_accuracy, study_report
from validation.export import services as export_services
from validation.forms import (
    BaselineAnswerForm,
    BaselineStudyForm,
    SplitForm,
    ValidationForm,
)
from validation.models import (
    CRITERIA,
    BaselineStudy,
    ReleaseExport,
    SplitVersion,
    ValidationRevision,
)
from validation.release import ReleaseError
from validation.split import services as split_services
from validation.split.rules import (
    DEFAULT_SEED,
    SPLIT_NAME_RULE,
    SplitError,
    default_sizes,
)

# What a refusal sets beside what won (refusals.compare), in the drafts' shapes.
VALIDATION_SHOWN = (
    refusals.Shown("text", "Claim"),
    refusals.Shown("subset", "Subset"),
    refusals.Shown("label", "Label"),
    refusals.Shown("explanation", "Explanation"),
    refusals.Shown("evidence", "Evidence", "ids"),
    refusals.Shown("criteria_failed", "Criteria failed", "list"),
    refusals.Shown("outcome", "Outcome"),
)
BASELINE_SHOWN = (refusals.Shown("label", "Label"), refusals.Shown("explanation", "Explanation"))


NEXT_VALIDATION = NextStage(
    take=lambda user: services.take_next(user=user),
    page="validation:validate",
    nothing="No claim is waiting for your validation right now.",
    onward="Here is the next claim to validate.",
)
next_validation = next_view(NEXT_VALIDATION)


class ValidatePage(WorkItemPage):
    """The fourth expert validates a claim against the five criteria and revises what fails
    (its text, subset, label, evidence or explanation). The page's autosave posts JSON to the
    page itself."""

    kinds = (WorkKind.VALIDATE,)
    form_class = ValidationForm
    template = "validation/validate.html"
    shown = VALIDATION_SHOWN
    invalid = (services.InvalidValidation,)

    def post(self, request: HttpRequest, item_key: str) -> HttpResponse:
        if request.content_type == "application/json":  # the autosave: only the holder's kept
            return self.autosave(request, self.get_item(item_key))
        return super().post(request, item_key)

    def initial(self, item: WorkItem) -> Values:
        """A reload shows the holder's autosaved draft; otherwise nothing typed (the page shows
        the claim as it is)."""
        if item.held_by(self.request.user) and ValidationForm.is_draft(item.draft):
            return ValidationForm.from_draft(item.draft)
        return Values()

    def page_context(self, item: WorkItem, form: Values) -> dict:
        holder = item.held_by(self.request.user)
        page = selectors.validation_page(item.pk)
        claim, pair = page.claim, page.pair
        sibling = page.sibling.text if page.sibling else ""
        entailed = claim.text if claim.label == "entailed" else sibling
        refuted = claim.text if claim.label == "refuted" else sibling
        selected = set(form["evidence"]) if form else page.evidence_ids
        # The writer's pair-level checks too: a claim naming a table or figure not among its
        # evidence (as the validator has ticked it), a refuted claim that only negates.
        warnings = claim_warnings.claim_warnings(
            text=claim.text,
            entailed=entailed,
            refuted=refuted,
            paragraphs=page.paragraphs,
            visuals=page.sampled_texts,
            evidence=selectors.evidence_names(page, selected),
            low=settings.CLAIM_MIN_WORDS,
            high=settings.CLAIM_MAX_WORDS,
        )
        subset = form["subset"] if form and form["subset"] in Subset.values else pair.subset
        failed = form["criteria_failed"] if form else page.validation.criteria_failed
        opened = form and self.request.method != "POST"
        return {
            "page": page,
            "item": page.item,
            "claim": claim,
            "pair": pair,
            "holder": holder,
            "criteria": CRITERIA,
            "subsets": Subset.values,
            "warnings": warnings,
            "evidence_warning": selectors.evidence_rule_warning(page),
            "evidence_rule": rule_text(subset, whole=True),
            "selected": selected,
            "failed": set(failed),
            "draft_saved_at": item.draft_saved_at if opened else None,
            "server_draft_at": item.draft_saved_at if holder else None,
            "revisions": ValidationRevision.objects.filter(
                validation=page.validation
            ).select_related("by"),
        }

    def submit(self, item: WorkItem, form: Values) -> HttpResponse:
        services.submit_validation(
            item=item,
            user=self.request.user,
            version=form.version,
            token=form.token,
            criteria_failed=form.criteria_failed,
            text=form.text,
            subset=form.subset,
            label=form.label,
            evidence_ids=form.evidence,
            explanation=form.explanation,
        )
        return after_submission(self.request, NEXT_VALIDATION, "Validated. Thank you.")


validate = ValidatePage.as_view()


@staff_required
def overview(request: HttpRequest) -> HttpResponse:
    total, waiting = work.waiting_items(kind=WorkKind.VALIDATE)
    back_total, back_waiting = work.waiting_items(kind=WorkKind.REPERTURB)
    ok, _ = selectors.complete_pair_ids()
    live = selectors.live_validations()
    context = {
        "counts": work.status_counts(WorkKind.VALIDATE),
        "waiting_total": total + back_total,
        # Allow someone: per validation item, only the experts who may take it.
        "waiting": _with_takers(waiting) + [(w, None) for w in back_waiting],
        "validated": live.filter(status="validated").count(),
        "revised": live.filter(revisions__gt=0).count(),
        "pending": live.filter(status="pending").count(),
        "splittable": len(ok),
        "back": selectors.back_to_writer(),
        "experts": get_user_model()
        .objects.filter(is_active=True, expert__active=True, expert__archived_at__isnull=True)
        .order_by("username")
        .only("id", "username"),
    }
    filters = lists.SearchForm(request.GET or None)
    listing = lists.page_of(request, selectors.validated(filters.value("q")), 50)
    context.update(
        listing,
        filters=filters,
        recent=selectors.validated_rows(validations=listing["page"].object_list),
        archived_papers=Paper.objects.filter(archived_at__isnull=False).count(),
    )
    refused = filters.is_bound and not filters.is_valid()  # its error shows, unfiltered
    return render(request, "validation/overview.html", context, status=400 if refused else 200)


def _with_takers(
    waiting: list[work.WaitingItem],
) -> list[tuple[work.WaitingItem, Takers | None]]:
    found = takers([w.item for w in waiting])
    return [(w, found[w.item.pk]) for w in waiting]


@staff_required
@require_POST
def reopen(request: HttpRequest, claim_key: str) -> HttpResponse:
    claim = get_object_or_404(Claim, key=claim_key)
    errors: dict[str, str] = {}
    reason = parse.kept_text(request.POST, "reason", max_length=MAX_TEXT, errors=errors)
    if errors:  # never cut: the reason comes back whole, nothing is re-opened
        return refused_text(
            request,
            errors,
            title=f"re-open the validation of claim {claim.key}",
            fields=[("reason", "Reason", reason)],
            button="Re-open",
            back="validation:overview",
        )
    try:
        services.reopen_validation(claim=claim, by=request.user, reason=reason)
    except AnnotationError as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, "The claim is back in validation.")
        splits = selectors.frozen_splits([claim.pair_id]).get(claim.pair_id)
        if splits:
            messages.warning(request, selectors.frozen_split_warning(splits))
    return redirect("validation:overview")


@staff_required
def statistics(request: HttpRequest) -> HttpResponse:
    names = list(SplitVersion.objects.values_list("name", flat=True))
    name = parse.parse_text(request.GET.get("split"), field="split", max_length=200) or None
    if name is not None and name not in names:
        messages.error(
            request,
            f"There is no split {name!r} (splits: {', '.join(names) or 'none yet'}): "
            "showing the validated pool instead.",
        )
        name = None
    result = selectors.dataset_statistics(name)
    plots = {}
    for part, figures in result["parts"].items():
        plots[part] = [
            stats.bar_chart(list(figures["evidence"].items()), title="Claims by evidence pieces"),
            stats.stacked_pairs_chart(figures["subsets"], title="Claims per subset"),
            stats.stacked_pairs_chart(figures["subfields"], title="Claims per subfield"),
        ]
    progress = stats.bar_chart(result["progress"], title="Progress of every stage")
    # The pool's annotation-artifact audit (validation.audit), computed once per request.
    artifacts = None if name else audit_pool.pool_audit(human=latest_human_accuracy())
    context = {
        "result": result,
        "plots": plots,
        "progress_plot": progress,
        "names": names,
        "name": name,
        "synthetic": selectors.synthetic_summary(name),
        **artifact_context(artifacts, audit_pool.artifact_margin()),
    }
    return render(request, "validation/statistics.html", context)


# --- Human baseline --------------------------------------------------------------------------


@staff_required
def baseline(request: HttpRequest) -> HttpResponse:
    candidates = baseline_services.baseline_candidates()
    status = 200
    chosen: list[int] = []
    if request.method == "POST":
        try:
            form = BaselineStudyForm.read(request.POST)
            chosen = form["experts"]
            known = {u.pk for u in candidates}
            unknown = [pk for pk in form["experts"] if pk not in known]
            if unknown:
                raise parse.BadInput(
                    f"experts: no active expert has the id {unknown[0]}.", field="experts"
                )
            study = baseline_services.start_baseline(
                by=request.user,
                expert_ids=form["experts"],
                per_subset=form["per_subset"] or settings.BASELINE_PER_SUBSET,
                seed=form["seed"] or 0,
                anyway=form["anyway"],
            )
        except (AnnotationError, parse.BadInput) as exc:
            messages.error(request, str(exc))
            status = 400 if isinstance(exc, parse.BadInput) else 200
        else:
            messages.success(
                request, f"Study {study.pk} started with {study.items.count()} claims."
            )
            return redirect("validation:baseline_study", study_id=study.pk)
    pools = baseline_services.expert_pools([u.pk for u in candidates])
    context = {
        "candidates": [(u, pools[u.pk], u.pk in chosen) for u in candidates],
        "studies": BaselineStudy.objects.prefetch_related("experts"),
        "per_subset": settings.BASELINE_PER_SUBSET,
    }
    return render(request, "validation/baseline.html", context, status=status)


@staff_required
def baseline_study(request: HttpRequest, study_id: int) -> HttpResponse:
    study = get_object_or_404(BaselineStudy, pk=study_id)
    return render(request, "validation/study.html", {"study": study, "report": study_report(study)})


NEXT_BASELINE = NextStage(
    take=lambda user: baseline_services.take_next_baseline(user=user),
    page="validation:baseline_answer",
    nothing="No baseline claim is waiting for you.",
    onward="Here is the next claim.",
)
baseline_next = next_view(NEXT_BASELINE)


class BaselinePage(WorkItemPage):
    """A human-baseline expert labels a validated claim from its context, as a model would
    (the page is its holder's only; a refusal other than a stale page has a page of its own)."""

    kinds = (WorkKind.BASELINE,)
    form_class = BaselineAnswerForm
    template = "validation/baseline_answer.html"
    shown = BASELINE_SHOWN
    invalid = (services.InvalidValidation,)

    @classmethod
    def get_item(cls, key: str) -> WorkItem:
        return get_object_or_404(
            WorkItem.objects.select_related("claim__pair__context", "claim__pair__task", "paper"),
            key=key,
            kind__in=cls.kinds,
        )

    def may_open(self, item: WorkItem) -> bool:
        return item.held_by(self.request.user)

    def adjust(self, refusal: refusals.Refusal) -> refusals.Refusal:
        refusal.own_page = refusal.reason == "stale"
        return refusal

    def page_context(self, item: WorkItem, form: Values) -> dict:

        pieces = (
            CuratedElement.objects.filter(
                context=item.claim.pair.context, in_context=True, not_a_chart=False
            )
            .select_related("element__section")
            .order_by("element__order")
        )
        return {"claim": item.claim, "pieces": pieces, "post": form}

    def submit(self, item: WorkItem, form: Values) -> HttpResponse:
        baseline_services.submit_baseline_answer(
            item=item,
            user=self.request.user,
            version=form.version,
            token=form.token,
            label=form.label,
            explanation=form.explanation,
        )
        return after_submission(self.request, NEXT_BASELINE, "Answer recorded.")


baseline_answer = BaselinePage.as_view()


# --- Splits and releases ---------------------------------------------------------------------


@staff_required
def releases(request: HttpRequest) -> HttpResponse:

    known_licences = sorted(KNOWN_LICENCES)
    status = 200
    if request.method == "POST":
        try:
            data = SplitForm.read(request.POST)
            split = split_services.freeze_split_from_form(data, by=request.user)
        except (AnnotationError, SplitError, parse.BadInput) as exc:
            messages.error(request, str(exc))
            status = 400 if isinstance(exc, parse.BadInput) else 200
        else:
            messages.success(request, f"Split {split.name} frozen.")
            return redirect("validation:releases")
    ok, _ = selectors.complete_pair_ids()
    pool = split_services.split_pool()
    breakdown = split_services.licence_breakdown(pool)
    default_pairs = sum(share.pairs for share in breakdown if share.by_default)
    # What a split without --licenses can take: on a small pool (the demo), the sizes a
    # paper-disjoint draw with the default seed makes.
    validation, test = split_services.offered_sizes(pool, seed=DEFAULT_SEED)
    offered_reachable = (validation, test) != default_sizes(default_pairs)
    form = {
        "validation": validation,
        "test": test,
        "seed": DEFAULT_SEED,
        "licenses": "",
        "name": "",
        "allow_shared_papers": "",
    }
    if request.method == "POST":  # refused: the form keeps what was typed
        form |= {k: request.POST.get(k, "") for k in form}
    context = {
        "splits": SplitVersion.objects.all(),
        "exports": ReleaseExport.objects.select_related("split", "job")[:30],
        "pool_claims": 2 * len(ok),
        "pool_pairs": len(ok),
        "archived_papers": Paper.objects.filter(archived_at__isnull=False).count(),
        "licence_breakdown": breakdown,
        "default_pairs": default_pairs,
        "default_claims": 2 * default_pairs,
        "redistributable": ", ".join(REDISTRIBUTABLE),
        "form": form,
        "offered_reachable": offered_reachable,
        "form_offer": (
            f"offered: {validation} + {test}, the largest 1:2 sizes a paper-disjoint draw with "
            f"seed {DEFAULT_SEED} makes from this pool"
        ),
        "next_name": split_services.next_split_name(),
        "licence_codes": known_licences,
        "name_rule": SPLIT_NAME_RULE,
    }
    return render(request, "validation/releases.html", context, status=status)


@staff_required
@require_POST
def export(request: HttpRequest, split_id: int) -> HttpResponse:
    split = get_object_or_404(SplitVersion, pk=split_id)
    try:
        flags = export_services.ExportForm.read(request.POST)
        item = export_services.start_export(split=split, by=request.user, **flags)
    except ReleaseError as exc:
        messages.error(request, str(exc))
        return redirect("validation:releases")
    return redirect("validation:export_status", export_id=item.pk)


@staff_required
def export_status(request: HttpRequest, export_id: int) -> HttpResponse:
    item = get_object_or_404(ReleaseExport.objects.select_related("split", "job"), pk=export_id)
    template = (
        "validation/_export_status.html"
        if request.headers.get("HX-Request")
        else "validation/export.html"
    )
    labels_file = export_services.labels_file(item)
    return render(request, template, {"export": item, "labels_file": labels_file})


@staff_required
def download(request: HttpRequest, export_id: int) -> HttpResponse:
    item = get_object_or_404(ReleaseExport, pk=export_id)
    path = export_services.archive_file(item)
    if path is None:
        raise Http404("This export has no archive (yet).")
    return FileResponse(open(path, "rb"), as_attachment=True, filename=path.name)


@login_required
def element_image(request: HttpRequest, item_key: str, element_id: int) -> HttpResponse:
    """A table/chart image of a validation or baseline item's context, to whoever holds or did
    that item (they are not assigned the paper, so the media route would refuse them): the one
    image rule, `annotation.views.common.item_image`."""
    item = get_object_or_404(
        WorkItem.objects.only(
            "id", "key", "paper_id", "pair_id", "status", "holder_id", "done_by_id", "assignee_id"
        ),
        key=item_key,
        kind__in=[WorkKind.VALIDATE, WorkKind.BASELINE],
    )
    return item_image(request, item, element_id, may_see=access.may_see_item(request.user, item))
