"""Regenerate the corpus HTML from each paper's LaTeX (a developer step, never a test step).

    python tools/corpus/build.py            # every paper
    python tools/corpus/build.py SLUG ...   # some papers

Each `papers/corpus/<slug>/` holds `paper.tex`, its images under `figures/` (drawn by
tools/corpus/figures.py), `meta.json` and the generated `paper.html`. The folder stands for the
paper's directory on arXiv, `https://arxiv.org/html/<id>v<N>/`.

Steps per paper:
1. copy `paper.tex` and `figures/` to a temporary directory and run Debian's LaTeXML there:
   `latexmlc --format=html5 --path=<corpus>/texmf --timestamp=... --dest=out/paper.html paper.tex`
   (`texmf/` holds small stand-ins for algorithm.sty / algorithmic.sty, listings.cfg and
   textcase.sty, which LaTeXML's bindings of algorithm, listings and acmart need as raw TeX
   and which the machines lack: only texlive-latex-base). The timestamp
   is fixed from meta.json so that rebuilding gives the same bytes. Undefined macros are an
   error unless the paper lists them in EXPECTED_ERRORS (some papers have them on purpose).
2. "plain" papers keep LaTeXML's output as is; LaTeXML's CSS files are not kept.
3. "served" papers (SERVED below) get arXiv's changes (see /work/shared/docs/ARXIV_HTML.md):
   attributes sorted, void tags self-closed, `<base href="/html/<id>v<N>/"/>` (or no base and
   `src="<id>v<N>/x1.png"`), internal links absolute, author images moved under
   `extracted/<submission>/...`, and arXiv's page chrome: `nav.ltx_page_navbar` (table of
   contents), `div.package-alerts`, a license/watermark block, the page footer and, for a
   browser-saved copy, `button` "Report issue for preceding element" elements. The article's
   tree is checked to be unchanged apart from those edits.
4. "served2026" papers (SERVED entries with `"shape": "2026"`) get the shape of arXiv's 2026
   regeneration instead: no `<base>`, rasters `src="<id>v<N>/x1.png"`, attributes in
   LaTeXML's own order (`id` before `class`, not sorted), HTML5 void tags (not self-closed),
   the stylesheet `arxiv-html-papers-20260131.css`, `intent=":literal"` on every `<math>`,
   the generator comment and footer stamped with meta.json's `regenerated` time and
   "LaTeXML (version 0.8.8)", the licence banner `a#license-tr`, no package alert unless the
   entry lists failed packages. The article's tree (apart from links, sources and `intent`)
   is checked to be unchanged; the markup itself is LaTeXML 0.8.7's.

Needs lxml (the project's dependency) and latexmlc on PATH.
"""

from __future__ import annotations

import copy
import datetime as dt
import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import lxml.html
from lxml import etree

CORPUS = Path(__file__).resolve().parents[2] / "papers" / "corpus"  # the data stays there
TEXMF = CORPUS / "texmf"

# Papers turned into arXiv's served shape. Every other folder with a paper.tex stays plain.
SERVED: dict[str, dict] = {
    # <base href="/html/<id>v1/"/>, images under extracted/<submission>/, saved from a browser
    "sparse-adapter-mt": {
        "base": True,
        "images": "extracted",
        "submission": "5871204",
        "report_buttons": True,
    },
    # no <base>; images are LaTeXML rasters x1.png ... with src="<id>v<N>/x1.png"
    "occlusion-depth": {"base": False, "images": "x", "report_buttons": False},
    # <base>, extracted/ images, conversion errors announced in the package alert
    "seedsmith-fuzzing": {
        "base": True,
        "images": "extracted",
        "submission": "6013377",
        "report_buttons": False,
    },
    # arXiv's 2026 regeneration of a 2024 paper (served2026 shape, see the module docstring)
    "prefetch-edge-cache": {"shape": "2026", "base": False, "images": "x", "report_buttons": False},
    # <base>, extracted/ images, acmart (the "inconsolata" package alert)
    "session-query-suggest": {
        "base": True,
        "images": "extracted",
        "submission": "5890417",
        "report_buttons": False,
    },
    # no <base>, x<N>.png rasters, saved from a browser (report buttons)
    "tempered-early-exit": {"base": False, "images": "x", "report_buttons": True},
}

# Undefined macros a paper contains on purpose (they become span.ltx_ERROR).
EXPECTED_ERRORS: dict[str, set[str]] = {
    "seedsmith-fuzzing": {"\\cmark", "\\xmark", "\\sysname"},
}

VOID = {
    "area",
    "base",
    "br",
    "col",
    "embed",
    "hr",
    "img",
    "input",
    "link",
    "meta",
    "source",
    "track",
    "wbr",
}
RAW_TEXT = {"script", "style"}

# libxml2's HTML parser lower-cases names; inline SVG needs its camelCase back.
SVG_TAGS = {
    t.lower(): t
    for t in [
        "clipPath",
        "linearGradient",
        "radialGradient",
        "foreignObject",
        "textPath",
        "feGaussianBlur",
    ]
}
SVG_ATTRS = {
    a.lower(): a
    for a in [
        "viewBox",
        "markerHeight",
        "markerWidth",
        "markerUnits",
        "refX",
        "refY",
        "preserveAspectRatio",
        "gradientUnits",
        "gradientTransform",
        "patternUnits",
        "patternTransform",
        "clipPathUnits",
        "stdDeviation",
        "textLength",
        "lengthAdjust",
        "pathLength",
        "maskUnits",
        "maskContentUnits",
    ]
}

ARXIV_CSS = [
    "https://arxiv.org/static/browse/0.3.4/css/ar5iv.0.7.9.min.css",
    "https://arxiv.org/static/browse/0.3.4/css/ar5iv-fonts.0.7.9.min.css",
    "https://arxiv.org/static/browse/0.3.4/css/latexml_styles.css",
]
ARXIV_CSS_2026 = [
    "https://arxiv.org/static/browse/0.3.4/css/arxiv-html-papers-20260131.css",
]
LATEXML_2026 = "0.8.8"
ARXIV_JS = [
    "https://cdn.jsdelivr.net/npm/bootstrap@5.3.0/dist/js/bootstrap.bundle.min.js",
    "https://cdnjs.cloudflare.com/ajax/libs/html2canvas/1.3.3/html2canvas.min.js",
    "https://arxiv.org/static/browse/0.3.4/js/addons_new.js",
    "https://arxiv.org/static/browse/0.3.4/js/feedbackOverlay.js",
]
REPORT = "Report issue for preceding element"


# --------------------------------------------------------------------------- LaTeXML
def run_latexml(slug: str, src_dir: Path, meta: dict, work: Path) -> Path:
    shutil.copy2(src_dir / "paper.tex", work / "paper.tex")
    if (src_dir / "figures").is_dir():
        shutil.copytree(src_dir / "figures", work / "figures")
    stamp = dt.datetime.fromisoformat(meta["updated"].replace("Z", "+00:00")) + dt.timedelta(
        minutes=7
    )
    cmd = [
        "latexmlc",
        "--format=html5",
        f"--path={TEXMF}",
        f"--timestamp={stamp.strftime('%a %b %d %H:%M:%S %Y')}",
        f"--log={work / 'latexml.log'}",
        "--dest=out/paper.html",
        "paper.tex",
    ]
    proc = subprocess.run(cmd, cwd=work, capture_output=True, text=True, timeout=600)
    log = (
        proc.stderr + (work / "latexml.log").read_text(errors="replace")
        if (work / "latexml.log").exists()
        else proc.stderr
    )
    out = work / "out" / "paper.html"
    if proc.returncode != 0 or not out.exists():
        raise SystemExit(f"{slug}: latexmlc failed ({proc.returncode})\n{log[-3000:]}")
    undefined = set(re.findall(r"Error:undefined:(\\\S+)", log))
    missing = set(re.findall(r"Warning:missing_file:(\S+)", log))
    allowed = EXPECTED_ERRORS.get(slug, set())
    if missing:
        raise SystemExit(f"{slug}: LaTeXML could not find {sorted(missing)}")
    if undefined - allowed or allowed - undefined:
        raise SystemExit(
            f"{slug}: undefined macros {sorted(undefined)}, expected {sorted(allowed)}"
        )
    other = [
        ln for ln in log.splitlines() if re.match(r"(Error|Fatal):", ln) and "undefined" not in ln
    ]
    if other:
        raise SystemExit(f"{slug}: LaTeXML errors:\n" + "\n".join(other))
    return out


# --------------------------------------------------------------------------- serializer
def _esc_text(s: str) -> str:
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _esc_attr(s: str) -> str:
    return _esc_text(s).replace('"', "&quot;")


def serialize(doc: etree._ElementTree, *, sort_attrs: bool = True, self_close: bool = True) -> str:
    """arXiv-style HTML: sorted attributes, self-closed void elements, explicit end tags.

    The 2026 shape keeps the attributes in LaTeXML's order and writes void tags as `<img ...>`.
    """
    parts: list[str] = ["<!DOCTYPE html>\n"]

    def walk(el, in_svg: bool):
        if el.tag is etree.Comment:
            parts.append(f"<!--{el.text}-->")
        else:
            tag = el.tag
            svg = in_svg or tag == "svg"
            if svg:
                tag = SVG_TAGS.get(tag, tag)
            attrs = []
            items = list(el.attrib.items())
            if sort_attrs:
                items.sort(key=lambda kv: SVG_ATTRS.get(kv[0], kv[0]) if svg else kv[0])
            for k, v in items:
                name = SVG_ATTRS.get(k, k) if svg else k
                attrs.append(f' {name}="{_esc_attr(v)}"')
            if el.tag in VOID:
                parts.append(f"<{tag}{''.join(attrs)}{'/' if self_close else ''}>")
            else:
                parts.append(f"<{tag}{''.join(attrs)}>")
                if el.text:
                    parts.append(el.text if el.tag in RAW_TEXT else _esc_text(el.text))
                for child in el:
                    walk(child, svg)
                parts.append(f"</{tag}>")
        if el.tail:
            parts.append(_esc_text(el.tail))

    walk(doc.getroot(), False)
    parts.append("\n")
    return "".join(parts)


def E(
    tag: str, attrs: dict | None = None, *children, text: str | None = None, tail: str | None = "\n"
):
    el = etree.Element(tag)
    for k, v in (attrs or {}).items():
        el.set(k, v)
    if text is not None:
        el.text = text
    for c in children:
        el.append(c)
    el.tail = tail
    return el


# --------------------------------------------------------------------------- served shape
def toc(article, page_url: str):
    """nav.ltx_page_navbar > nav.ltx_TOC with the sections, subsections, appendix, references."""

    def entries(parent, depth):
        ol = E("ol", {"class": "ltx_toclist" + (" ltx_toclist_section" if depth else "")})
        ol.text = "\n"
        for sec in parent.iterchildren("section"):
            classes = sec.get("class", "").split()
            kind = next(
                (
                    c[4:]
                    for c in classes
                    if c in {"ltx_section", "ltx_subsection", "ltx_appendix", "ltx_bibliography"}
                ),
                None,
            )
            if kind is None:
                continue
            head = next(
                (h for h in sec if isinstance(h.tag, str) and "ltx_title" in h.get("class", "")),
                None,
            )
            if head is None:
                continue
            full = " ".join(head.text_content().split())
            title_span = E("span", {"class": "ltx_text ltx_ref_title"}, tail=None)
            tag = next(
                (t for t in head if t.tag == "span" and "ltx_tag" in t.get("class", "")), None
            )
            if tag is not None:
                tag_text = tag.text_content()
                title_span.append(
                    E(
                        "span",
                        {"class": "ltx_tag ltx_tag_ref"},
                        text=tag_text,
                        tail=full[len(tag_text.strip()) :].strip(),
                    )
                )
            else:
                title_span.text = full
            a = E(
                "a",
                {"class": "ltx_ref", "href": f"{page_url}#{sec.get('id')}", "title": f"In {full}"},
                title_span,
                tail=None,
            )
            li = E("li", {"class": f"ltx_tocentry ltx_tocentry_{kind}"}, a)
            if kind == "section" or kind == "appendix":
                sub = entries(sec, depth + 1)
                if len(sub):
                    li.append(sub)
            ol.append(li)
        return ol

    lst = entries(article, 0)
    return E("nav", {"class": "ltx_page_navbar"}, E("nav", {"class": "ltx_TOC"}, lst))


def package_alert(errors: bool, failed: list[str]):
    close = lxml.html.fragment_fromstring(
        '<button aria-label="Dismiss alert" onclick="closePopup()"><span aria-hidden="true">'
        '<svg height="20" role="presentation" viewBox="0 0 44 44" width="20">'
        '<path d="M0.549989 4.44999L4.44999 0.549988L43.45 39.55L39.55 43.45L0.549989 4.44999Z"></path>'
        '<path d="M39.55 0.549988L43.45 4.44999L4.44999 43.45L0.549988 39.55L39.55 0.549988Z"></path>'
        "</svg></span></button>"
    )
    close.tail = "\n"
    p1 = lxml.html.fragment_fromstring(
        '<p>HTML conversions <a href="https://info.dev.arxiv.org/about/accessibility_html_error_messages.html" '
        'target="_blank">sometimes display errors</a> due to content that did not convert correctly from the source. '
        "This paper uses the following packages that are not yet supported by the HTML conversion tool. "
        "Feedback on these issues are not necessary; they are known and are being worked on.</p>"
    )
    p1.tail = "\n"
    ul = E(
        "ul",
        {"arial-label": "Unsupported packages used in this paper"},
        *[E("li", text=f"failed: {f}") for f in failed],
    )
    ul.text = "\n"
    p2 = lxml.html.fragment_fromstring(
        "<p>Authors: achieve the best HTML results from your LaTeX submissions by following these "
        '<a href="https://arxiv.org/help/submit_latex_best_practices" target="_blank">best practices</a>.</p>'
    )
    p2.tail = "\n"
    label = (
        "Conversion errors have been found" if errors else "Unsupported packages used in this paper"
    )
    div = E(
        "div",
        {"class": "package-alerts ltx_document", "role": "status", "aria-label": label},
        close,
        p1,
        ul,
        p2,
    )
    div.text = "\n"
    return div


def watermark(meta: dict, license_name: str, license_url: str):
    published = dt.datetime.fromisoformat(meta["published"].replace("Z", "+00:00"))
    a = E(
        "a", {"id": "license-tr", "href": license_url}, text=f"License: {license_name}", tail=None
    )
    w = E(
        "div",
        {"id": "watermark-tr"},
        text=f"arXiv:{meta['arxiv_id']}v{meta['version']} [{meta['primary_category']}] {published.day} {published.strftime('%b %Y')}",
        tail=None,
    )
    attrs = {"id": "target-section", "class": "section"}
    return E("div", attrs, a, w)


def report_button():
    return E("button", {"class": "sr-only button", "style": "display: none;"}, text=REPORT)


def signature(el, skip_buttons=True, ignore=("href", "src")):
    """Structure and text of a subtree, for checking that the served copy kept the article."""
    if el.tag is etree.Comment:
        return ("#comment",)
    kids = [
        signature(c, skip_buttons, ignore) for c in el if not (skip_buttons and c.tag == "button")
    ]
    attrs = {k.lower(): v for k, v in el.attrib.items() if k not in ignore}
    return (
        el.tag.lower() if isinstance(el.tag, str) else el.tag,
        tuple(sorted(attrs.items())),
        (el.text or "").strip(),
        tuple(kids),
        (el.tail or "").strip(),
    )


def make_served(
    slug: str, src_dir: Path, meta: dict, plain_html: str, out_dir: Path, cfg: dict
) -> str:
    vid = f"{meta['arxiv_id']}v{meta['version']}"
    page_url = f"https://arxiv.org/html/{vid}"
    y2026 = cfg.get("shape") == "2026"
    ignore = ("href", "src", "intent") if y2026 else ("href", "src")
    doc = lxml.html.document_fromstring(plain_html).getroottree()
    root = doc.getroot()
    head, body = root.find("head"), root.find("body")
    article = body.find(".//article")
    before = signature(copy.deepcopy(article), ignore=ignore)

    # <head>: arXiv's title, base, styles and scripts instead of LaTeXML's CSS
    for link in head.findall("link"):
        if link.get("rel") == "stylesheet":
            head.remove(link)
    title = head.find("title")
    title.text = f"[{meta['arxiv_id']}] {title.text}"
    insert_at = list(head).index(title) + 1
    new = []
    if cfg["base"]:
        new.append(E("base", {"href": f"/html/{vid}/"}))
    if y2026:
        new += [
            E("link", {"rel": "stylesheet", "href": h, "type": "text/css"}) for h in ARXIV_CSS_2026
        ]
        new += [E("script", {"src": h}, text="") for h in ARXIV_JS[2:]]
        new.append(
            E("meta", {"name": "viewport", "content": "width=device-width, initial-scale=1"})
        )
    else:
        new += [E("link", {"href": h, "rel": "stylesheet", "type": "text/css"}) for h in ARXIV_CSS]
        new += [E("script", {"src": h}, text="") for h in ARXIV_JS]
        new.append(
            E("meta", {"content": "width=device-width, initial-scale=1", "name": "viewport"})
        )
    for el in reversed(new):
        head.insert(insert_at, el)
    for m in head.findall("meta"):
        if m.get("name") == "viewport" and m.get("content", "").endswith("shrink-to-fit=no"):
            head.remove(m)

    # images: author rasters under extracted/<submission>/..., or LaTeXML-style x<N>.png
    n = 0
    mapping: dict[str, str] = {}
    for img in root.iter("img"):
        src = img.get("src", "")
        if not src or src.startswith("data:"):
            continue
        if src not in mapping:
            if cfg["images"] == "extracted":
                rel = f"extracted/{cfg['submission']}/{src}"
                mapping[src] = rel
                target = out_dir / rel
            else:
                n += 1
                rel = f"x{n}.png"
                mapping[src] = f"{vid}/{rel}"
                target = out_dir / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src_dir / src, target)
        img.set("src", mapping[src])

    if y2026:
        # the regeneration: a newer LaTeXML, its stamp, and `intent` on every formula
        stamp = dt.datetime.fromisoformat(meta["regenerated"].replace("Z", "+00:00"))
        when = f"{stamp.strftime('%a %b')} {stamp.day:2d} {stamp.strftime('%H:%M:%S %Y')}"
        for c in root.iter(etree.Comment):
            if c.text and c.text.startswith("Generated on"):
                c.text = re.sub(
                    r"Generated on .*? by LaTeXML \(version [^)]*\)",
                    f"Generated on {when} by LaTeXML (version {LATEXML_2026})",
                    c.text,
                )
        logo = body.find(".//div[@class='ltx_page_logo']")
        if logo is not None and logo.text and logo.text.strip().startswith("Generated"):
            logo.text = f"Generated  on {when} by "
        for m in article.iter("math"):
            m.set("intent", ":literal")

    # internal links become absolute
    for a in root.iter("a"):
        href = a.get("href")
        if href and href.startswith("#"):
            a.set("href", page_url + href)

    # page chrome
    content = body.find(".//div[@class='ltx_page_content']")
    main = body.find("div[@class='ltx_page_main']")
    body.insert(0, toc(article, page_url))
    body.text = "\n"
    has_errors = bool(article.xpath(".//*[contains(concat(' ', @class, ' '), ' ltx_ERROR ')]"))
    failed = cfg.get("failed", [] if y2026 else ["inconsolata"] if not has_errors else ["pifont"])
    idx = list(content).index(article)
    content.insert(idx, watermark(meta, meta["license_name"], meta["license_url"]))
    if failed or has_errors:
        content.insert(idx, package_alert(has_errors, failed))
    if main.find("footer") is None:
        raise SystemExit(f"{slug}: no LaTeXML page footer")
    foot = lxml.html.fragment_fromstring(
        '<footer class="ltx_document" id="footer"><div class="keyboard-glossary">'
        "<h2>Instructions for reporting errors</h2><p>We are continuing to improve HTML versions of papers, "
        "and your feedback helps enhance accessibility and mobile support.</p></div>"
        '<button class="btn btn-primary hover-rp-button" id="openForm">Report Issue</button></footer>'
    )
    foot.tail = "\n"
    body.append(foot)

    if cfg.get("report_buttons"):
        for p in article.xpath(
            ".//div[contains(concat(' ', @class, ' '), ' ltx_para ')]/p | .//div[@class='ltx_abstract']/p"
        ):
            btn = report_button()
            btn.tail, p.tail = p.tail, "\n"
            p.addnext(btn)
        for fig in article.xpath(".//figure[not(ancestor::figure)]"):
            fig.append(report_button())

    after = signature(copy.deepcopy(article), ignore=ignore)
    if before != after:
        raise SystemExit(f"{slug}: served transformation changed the article tree")
    text = serialize(doc, sort_attrs=not y2026, self_close=not y2026)
    # re-parse: the served page must hold the same article again
    again = lxml.html.document_fromstring(text).getroottree().getroot().find(".//article")
    if signature(again, ignore=ignore) != before:
        raise SystemExit(f"{slug}: serialized page does not parse back to the same article")
    return text


# --------------------------------------------------------------------------- driver
def referenced_images(text: str) -> set[str]:
    doc = lxml.html.document_fromstring(text)
    return {
        img.get("src")
        for img in doc.iter("img")
        if img.get("src") and not img.get("src").startswith("data:")
    }


def clean_outputs(src_dir: Path):
    for p in ["paper.html", "extracted"]:
        q = src_dir / p
        if q.is_dir():
            shutil.rmtree(q)
        elif q.exists():
            q.unlink()
    for q in src_dir.glob("x[0-9]*.png"):
        q.unlink()


def build(slug: str):
    src_dir = CORPUS / slug
    meta = json.loads((src_dir / "meta.json").read_text())
    with tempfile.TemporaryDirectory(prefix=f"corpus-{slug}-") as tmp:
        work = Path(tmp)
        out = run_latexml(slug, src_dir, meta, work)
        plain = out.read_text(encoding="utf-8")
        clean_outputs(src_dir)
        for src in referenced_images(plain):  # LaTeXML may create rasters (x1.png) of its own
            if not (src_dir / src).exists():
                (src_dir / src).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(out.parent / src, src_dir / src)
        if slug in SERVED:
            text = make_served(slug, src_dir, meta, plain, src_dir, SERVED[slug])
            shape = "served2026" if SERVED[slug].get("shape") == "2026" else "served"
        else:
            text = plain
            shape = "plain"
        (src_dir / "paper.html").write_text(text, encoding="utf-8")
    print(f"{slug}: {shape}, {len(text.encode()) // 1024} KB")


def main(argv: list[str]) -> int:
    slugs = argv or sorted(p.parent.name for p in CORPUS.glob("*/paper.tex"))
    if not shutil.which("latexmlc"):
        print("latexmlc not found (Debian package: latexml)", file=sys.stderr)
        return 2
    for slug in slugs:
        build(slug)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
