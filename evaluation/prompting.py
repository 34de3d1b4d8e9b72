"""What a model is sent for one record (pure but for reading the release's files): the prompt
template filled with the context SciVer's reading builds and the claim, then each table/chart
image as a data URL after its caption; the cache key of that request; a token estimate."""

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

__all__ = [
    "DEFAULT_TEMPLATE",
    "PlannedRequest",
    "Template",
    "image_tokens",
    "plan_requests",
]

DEFAULT_TEMPLATE = Path(__file__).resolve().parent / "prompts" / "chain_of_thought.txt"
MIME = {".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif",
        ".webp": "image/webp"}  # fmt: skip
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
            "endpoint": endpoint.rstrip("/"), "model": model, "settings": dict(settings),
            "prompt": prompt, "text": hashlib.sha256(self.text.encode()).hexdigest(),
            "images": [(i.label, i.sha256) for i in self.images],
        }  # fmt: skip
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


def _image(part: ReleasePart, item: Item, path: str, caption: str, kind: str, number: str,
           seen: dict[Path, tuple[str, int, int]]) -> PlannedImage:  # fmt: skip
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


def plan_requests(part: ReleasePart, template: Template) -> list[PlannedRequest]:
    """One request per record of the part, from what SciVer's reading gives a model."""
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
