"""What a model is sent for one record (pure but for reading the release's files): the prompt
template filled with the context SciVer's reading builds and the claim, then each table/chart
image as a data URL after its caption; the cache key of that request; a token estimate.

In the retrieved setting (RAG, SciVer §4.4) the model gets only the top k units a retriever
finds in the record's paper for the claim, best first: the paragraphs as the context (each as
`section_name:\n` + its text), the tables/charts as images after their captions. A retrieved
table or chart whose image the release does not hold (our releases hold the images of evidence
only) is given by its caption in the context, marked so."""

from __future__ import annotations

import base64
import hashlib
import io
import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PIL import Image

from evaluation.release import EvaluationError, Item, ReleasePart
from evaluation.retrieval import PartIndex, get_retriever
from validation.release.formats import sciver_path
from validation.release.reading import record_elements
from validation.release.records import image_name

__all__ = [
    "DEFAULT_TEMPLATE",
    "FULL_CONTEXT",
    "ContextSetting",
    "PlannedRequest",
    "Template",
    "image_tokens",
    "plan_requests",
]

DEFAULT_TEMPLATE = Path(__file__).resolve().parent / "prompts" / "chain_of_thought.txt"
MIME = {
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".gif": "image/gif",
    ".webp": "image/webp",
}
CHARS_PER_TOKEN = 4  # a rough rule for English text
IMAGE_TOKENS_UNKNOWN = 765  # OpenAI's count for a 1024×1024 image at high detail


@dataclass(frozen=True)
class Template:
    """A prompt template: `{{context}}` and `{{claim}}` are filled in; its version is its name
    and the first 12 hex digits of its SHA-256, so an edited template never reuses answers."""

    name: str
    text: str

    @classmethod
    def load(cls, path: Path | None = None) -> Template:
        path = Path(path or DEFAULT_TEMPLATE)
        try:
            text = path.read_text("utf-8")
        except OSError as exc:
            raise EvaluationError(f"the prompt template {path} cannot be read ({exc})") from exc
        if "{{claim}}" not in text or "{{context}}" not in text:
            raise EvaluationError(
                f"the prompt template {path} must contain {{{{context}}}} and {{{{claim}}}}"
            )
        return cls(path.stem, text)

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.text.encode()).hexdigest()

    @property
    def version(self) -> str:
        return f"{self.name}@{self.sha256[:12]}"

    def render(self, *, context: str, claim: str) -> str:
        # One pass, so that braces or placeholders inside the paper's text stay as they are.
        parts = self.text.split("{{context}}")
        return context.join(p.replace("{{claim}}", claim) for p in parts)


@dataclass(frozen=True)
class ContextSetting:
    """What context a model gets: the record's full context as SciVer reads it (no
    retriever), or only the top `k` units `retriever` finds for the claim."""

    retriever: str = ""
    k: int = 5

    def __post_init__(self) -> None:
        if self.retriever:
            get_retriever(self.retriever)  # refuses an unknown name
            if self.k < 1:
                raise EvaluationError("k must be at least 1")

    @property
    def full(self) -> bool:
        return not self.retriever

    @property
    def key(self) -> str:
        """Part of the cache key: `full`, or `retrieved:bm25:k5`."""
        return "full" if self.full else f"retrieved:{self.retriever}:k{self.k}"

    @property
    def label(self) -> str:
        if self.full:
            return "full context"
        return f"{get_retriever(self.retriever).title} top {self.k}"


FULL_CONTEXT = ContextSetting()
NO_IMAGE = "[the release holds no image of it]"


@dataclass(frozen=True)
class PlannedImage:
    path: Path
    label: str  # its caption, put before it
    sha256: str
    width: int
    height: int


@dataclass(frozen=True)
class PlannedRequest:
    """One record's request, before its images are read into data URLs."""

    item: Item
    text: str
    images: tuple[PlannedImage, ...]
    context: str = "full"  # ContextSetting.key

    def content(self) -> list[dict[str, Any]]:
        """The user message's content parts, in OpenAI's chat-completions format."""
        parts: list[dict[str, Any]] = [{"type": "text", "text": self.text}]
        for image in self.images:
            data = base64.b64encode(image.path.read_bytes()).decode("ascii")
            mime = MIME.get(image.path.suffix.lower(), "image/png")
            parts.append({"type": "text", "text": image.label})
            parts.append({"type": "image_url", "image_url": {"url": f"data:{mime};base64,{data}"}})
        return parts

    def key(self, *, endpoint: str, model: str, settings: Mapping[str, Any], prompt: str) -> str:
        """The cache key: endpoint, model, settings, prompt template, text and image hashes."""
        material = {
            "endpoint": endpoint.rstrip("/"),
            "model": model,
            "settings": dict(settings),
            "prompt": prompt,
            "text": hashlib.sha256(self.text.encode()).hexdigest(),
            "images": [(i.label, i.sha256) for i in self.images],
        }
        if self.context != FULL_CONTEXT.key:  # (full-context keys stay as they were)
            material["context"] = self.context
        return hashlib.sha256(json.dumps(material, sort_keys=True).encode()).hexdigest()

    def input_tokens(self) -> int:
        labels = sum(len(i.label) for i in self.images)
        text = math.ceil((len(self.text) + labels) / CHARS_PER_TOKEN)
        return text + sum(image_tokens(i.width, i.height) for i in self.images)


def image_tokens(width: int, height: int) -> int:
    """OpenAI's published rule for an image at high detail: fit in 2048×2048, shortest side
    768, then 170 tokens per 512-pixel tile and 85 more (other APIs count differently)."""
    if width <= 0 or height <= 0:
        return IMAGE_TOKENS_UNKNOWN
    scale = min(1.0, 2048 / max(width, height))
    w, h = width * scale, height * scale
    scale = min(1.0, 768 / min(w, h))
    w, h = w * scale, h * scale
    return 85 + 170 * math.ceil(w / 512) * math.ceil(h / 512)


def _image(
    part: ReleasePart,
    item: Item,
    path: str,
    caption: str,
    kind: str,
    number: str,
    seen: dict[Path, tuple[str, int, int]],
) -> PlannedImage:
    local = part.local(path)
    if local not in seen:
        try:
            data = local.read_bytes()
        except OSError as exc:
            raise EvaluationError(
                f"request {item.request_id}: its image {path} cannot be read ({exc.strerror or exc})"
            ) from exc
        try:
            with Image.open(io.BytesIO(data)) as opened:
                width, height = opened.size
        except (OSError, ValueError):
            width = height = 0  # not an image Pillow knows: the estimate uses a default
        seen[local] = (hashlib.sha256(data).hexdigest(), width, height)
    sha256, width, height = seen[local]
    label = caption or f"{kind.title()} {number}"  # captions start "Table 2: …" themselves
    return PlannedImage(local, label, sha256, width, height)


def _image_paths(part: ReleasePart) -> dict[tuple[str, str, str], str]:
    """(paperid, kind, number) → the image path the part's records name for it."""
    return {
        (str(item.record.get("paperid", "")), kind, number): path
        for item in part.items
        for kind, number, path in record_elements(item.record)
    }


def _retrieved(
    part: ReleasePart, template: Template, setting: ContextSetting
) -> list[PlannedRequest]:
    index = PartIndex(part)
    retriever = get_retriever(setting.retriever)
    named = _image_paths(part)
    seen: dict[Path, tuple[str, int, int]] = {}
    planned = []
    for item in part.items:
        paperid = str(item.record.get("paperid", ""))
        context: list[str] = []
        images = []
        for found in index.retrieve(item, retriever, setting.k):
            unit = found.unit
            if unit.kind == "paragraph":
                context.append(f"{unit.section_name}:\n{unit.text}\n")
                continue
            path = named.get((paperid, unit.kind, unit.item)) or sciver_path(
                image_name(paperid, unit.kind, unit.item)
            )
            if part.local(path).is_file():
                images.append(_image(part, item, path, unit.caption, unit.kind, unit.item, seen))
            else:
                label = unit.caption or f"{unit.kind.title()} {unit.item}"
                context.append(f"{label} {NO_IMAGE}\n")
        text = template.render(context="".join(context), claim=item.claim)
        planned.append(PlannedRequest(item, text, tuple(images), setting.key))
    return planned


def plan_requests(
    part: ReleasePart, template: Template, context: ContextSetting = FULL_CONTEXT
) -> list[PlannedRequest]:
    """One request per record of the part, from what SciVer's reading gives a model, or (a
    retriever named) from what the retriever finds."""
    if not context.full:
        return _retrieved(part, template, context)
    seen: dict[Path, tuple[str, int, int]] = {}
    planned = []
    for item in part.items:
        given = part.model_input(item)
        images = tuple(
            _image(part, item, image.path, image.caption, image.type, image.item, seen)
            for image in given.images
        )
        text = template.render(context=given.context, claim=item.claim)
        planned.append(PlannedRequest(item, text, images))
    return planned
