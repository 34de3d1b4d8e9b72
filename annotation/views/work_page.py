"""The work-item page, once for every stage: GET the page, POST its form with its submission
token, autosave a JSON draft, answer a refusal. Writing a pair, a new perturbation, blind
annotation, adjudication, validation and the human baseline are subclasses naming their form,
template and service (`page_context`, `submit`).

A POST's answers (`refusals`): a form without its token is refused (`TOKEN_LOST`), never given a
fresh one; a value the form does not take, or a rule the service finds broken, is 400 with the
page again and everything typed kept; an item that changed or was submitted elsewhere is 409
(beside what won, when it is the requester's own work), one no longer theirs 403, and one they
never held 404, the answer a key that names nothing gets (blindness must not leak through status
codes). A page's script gets each refusal as JSON.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping
from typing import Any, ClassVar, cast

from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.auth.decorators import login_required
from django.db import transaction
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, render
from django.utils import timezone
from django.utils.decorators import method_decorator
from django.views import View
from django.views.decorators.http import require_POST

from annotation import access
from annotation.errors import AnnotationError
from annotation.inputs import TOKEN_LOST, AutosaveForm, BadInput, DraftForm, Values, json_object
from annotation.models import WorkItem
from annotation.queue import work
from annotation.views import refusals
from annotation.views.common import not_yours


@method_decorator(login_required, name="dispatch")
class WorkItemPage(View):
    """One work item's page. A subclass names `kinds` (the work item kinds it serves), its
    `form_class`, `template`, `shown` (how a refusal sets this page's values beside what won)
    and `recorded` (a submission's history row in the draft's shape), and writes
    `page_context` and `submit`."""

    http_method_names = ["get", "post"]
    kinds: ClassVar[tuple[str, ...]]
    form_class: ClassVar[type[DraftForm]]
    template: ClassVar[str]
    shown: ClassVar[refusals.Spec] = ()
    recorded: ClassVar[Callable[[dict], Mapping] | None] = None
    # What a service raises for a rule broken (with `.message` and `.errors`): a 400 refusal.
    invalid: ClassVar[tuple[type[Exception], ...]] = ()
    # False: a POST leaves the item to the service, which reads (and locks) it by its key; the
    # view reads it only to answer a refusal (one query fewer for every recorded submission).
    reads_item: ClassVar[bool] = True
    # The fields the page reads of the item for a POST and an autosave.
    item_fields: ClassVar[tuple[str, ...]] = (
        "id",
        "key",
        "kind",
        "status",
        "holder_id",
        "done_by_id",
        "assignee_id",
        "pair_id",
        "paper_id",
        "claim_id",
        "task_id",
        "version",
        "draft",
        "draft_saved_at",
        "lease_expires_at",
    )

    # --- What a subclass may change -------------------------------------------------------

    @classmethod
    def get_item(cls, key: str) -> WorkItem:
        """The item for a POST and an autosave (404 for a key that names none of `kinds`)."""
        return get_object_or_404(
            WorkItem.objects.only(*cls.item_fields), key=key, kind__in=cls.kinds
        )

    def page_item(self, key: str) -> WorkItem:
        """The item for the page (a subclass reads what its page shows with it)."""
        return self.get_item(key)

    def may_open(self, item: WorkItem) -> bool:
        """Who sees the page: its holder, whoever submitted it, and admins."""
        return access.may_see_item(self.request.user, item)

    def opened(self, item: WorkItem) -> HttpResponse | None:
        """A page that is somewhere else (a done item's result), or None."""
        return None

    def page_context(self, item: WorkItem, form: Values) -> dict[str, Any]:
        """What the template shows beside the form, the refusal and the token."""
        raise NotImplementedError

    def initial(self, item: WorkItem) -> Values:
        """The form of a page opened: the draft kept on the item."""
        return self.form_class.from_draft(item.draft)

    def submit(self, item: WorkItem | None, form: Values) -> HttpResponse:
        """Record the submission through the service; where the page goes next. (`item` is
        None when the page does not read it first: `self.kwargs["item_key"]` names it.)"""
        raise NotImplementedError

    def adjust(self, refusal: refusals.Refusal) -> refusals.Refusal:
        """A refusal of an AnnotationError, as this page answers it."""
        return refusal

    # --- The page, the submission, the autosave --------------------------------------------

    def render_page(
        self,
        item: WorkItem,
        form: Values | None = None,
        *,
        status: int = 200,
        errors: dict[str, str] | None = None,
        refusal: refusals.Refusal | None = None,
        token: str = "",
    ) -> HttpResponse:
        """The page with what the expert typed and why it was refused; a fresh submission
        token unless a refused one is kept for the retry."""
        form = form if form is not None else self.initial(item)
        context = self.page_context(item, form)
        context.setdefault("item", item)
        context |= {
            "form": form,
            "errors": errors or {},
            "error": refusal.message if refusal else "",
            "refusal": refusal,
            "token": token or uuid.uuid4(),
        }
        return render(self.request, self.template, context, status=status)

    def get(self, request: HttpRequest, item_key: str) -> HttpResponse:
        item = self.page_item(item_key)
        elsewhere = self.opened(item)
        if elsewhere is not None:
            return elsewhere
        if not self.may_open(item):
            return not_yours(request, item)
        return self.render_page(item)

    def known(self, item_key: str) -> WorkItem:
        """The item a POST is about: 404 for a key that names none, and for one the requester
        never held (may not open, and lost nothing), as for a page."""
        item = self.get_item(item_key)
        user = cast(AbstractBaseUser, self.request.user)  # signed in (login_required)
        if not self.may_open(item) and work.lost(item, user) is None:
            raise Http404  # the answer to a key that names no item
        return item

    def post(self, request: HttpRequest, item_key: str) -> HttpResponse:
        item = self.known(item_key) if self.reads_item else None
        problems: dict[str, str] = {}
        form = self.form_class.read(request.POST, errors=problems)
        token_text = request.POST.get("token", "")

        def refused(refusal: refusals.Refusal, token: str = "") -> HttpResponse:
            def page() -> HttpResponse:
                assert item is not None  # read before any refusal
                return self.render_page(
                    item,
                    form,
                    status=refusal.http_status,
                    errors=refusal.errors,
                    refusal=refusal,
                    token=token,
                )

            return refusals.answer(request, refusal, page)

        if form.token is None:
            item = item or self.known(item_key)
            return refused(refusals.invalid(TOKEN_LOST))
        if problems:
            item = item or self.known(item_key)
            message = "Nothing was recorded: " + " ".join(problems.values())
            return refused(refusals.invalid(message, problems), token_text)
        try:
            # One transaction for the submission and the lease of the next item it goes on to
            # (SQLite's write lock taken once): a failure records nothing and leases nothing;
            # a lease that finds nothing (or is refused) undoes only itself.
            with transaction.atomic():
                answer = self.submit(item, form)
            return refusals.done(request, answer)
        except self.invalid as exc:
            item = item or self.known(item_key)
            errors = getattr(exc, "errors", {})
            return refused(refusals.invalid(getattr(exc, "message", str(exc)), errors), token_text)
        except AnnotationError as exc:  # stale, submitted elsewhere, no longer theirs, dropped
            item = item or self.known(item_key)
            recorded = type(self).recorded
            shown = {"recorded": recorded} if recorded else {}
            refusal = refusals.for_work(
                request, item, exc, kept=form.as_draft(), spec=self.shown, **shown
            )
            return refused(self.adjust(refusal))

    @classmethod
    def autosave(cls, request: HttpRequest, item: WorkItem) -> HttpResponse:
        """The page's autosave: JSON draft in, JSON answer out, the draft read by the page's
        own form. A refused draft stays in the browser, which shows why (`refusals`: 400
        unreadable; 409 stale or submitted, with what won when it is the requester's own; 403
        no longer theirs; 404 never theirs)."""
        try:
            body = AutosaveForm.read(json_object(request))
            typed = {k: v for k, v in body.draft.items() if k not in ("version", "token")}
            draft = cls.form_class.read(typed)
        except BadInput as exc:
            # A text too long is not cut: the draft is refused whole, with the limit and its
            # length, and stays in the browser (the panel says it) until it is shortened.
            said = (
                "The draft was not saved" if exc.kept is not None else "The draft could not be read"
            )
            return refusals.as_json(
                request, refusals.invalid(f"{said}: {exc.message}", {exc.field: exc.message})
            )
        try:
            user = cast(AbstractBaseUser, request.user)  # signed in (the route's login_required)
            saved = work.save_draft(
                item=item, user=user, version=body.version, draft=draft.as_draft()
            )
        except (work.StaleWork, work.NotHolder) as exc:
            shown = {"recorded": cls.recorded} if cls.recorded else {}
            refusal = refusals.for_work(
                request, item, exc, kept=draft.as_draft(), spec=cls.shown, **shown
            )
            return refusals.as_json(request, refusal)
        assert saved.draft_saved_at is not None and saved.lease_expires_at is not None  # just set
        return JsonResponse(
            {
                "saved_at": timezone.localtime(saved.draft_saved_at).strftime("%H:%M:%S"),
                "lease_expires_at": saved.lease_expires_at.isoformat(),
            }
        )

    @classmethod
    def autosave_view(cls) -> Callable[..., HttpResponse]:
        """The autosave route of this page (`…/draft/`)."""

        @login_required
        @require_POST
        def save_draft(request: HttpRequest, item_key: str) -> HttpResponse:
            return cls.autosave(request, cls.get_item(item_key))

        return save_draft
