"""`charts.svg`, the one kit the app's charts are drawn with: pure, escaped, in order."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

from charts import svg

CHARTS = Path(__file__).resolve().parents[2] / "charts"


def test_the_kit_imports_the_standard_library_only():
    for path in CHARTS.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level:
                names = [node.module or ""]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                assert top in sys.stdlib_module_names or top in ("charts", "__future__"), (
                    f"{path.name} imports {name}"
                )


def test_the_chart_is_named_sized_and_scales():
    drawn = svg.svg(620, 117, "Reasons <&>", [svg.heading("Reasons <&>", x=4, y=14, weight=600)])
    assert drawn == (
        '<svg xmlns="http://www.w3.org/2000/svg" class="plot" role="img" width="620" '
        'height="117" viewBox="0 0 620 117"><title>Reasons &lt;&amp;&gt;</title>'
        '<text x="4" y="14" font-size="13" font-weight="600">Reasons &lt;&amp;&gt;</text></svg>'
    )


def test_elements_escape_every_text_and_keep_their_attributes_in_order():
    assert svg.text(1, 2.5, '<b>"x" & y</b>', class_="tick", font_size=10, text_anchor="end") == (
        '<text class="tick" x="1" y="2.5" font-size="10" text-anchor="end">'
        "&lt;b&gt;&quot;x&quot; &amp; y&lt;/b&gt;</text>"
    )
    assert svg.rect(150, 31, "12.0", 12, "#3b6ea5", hint="a · <b>: 50%") == (
        '<rect x="150" y="31" width="12.0" height="12" fill="#3b6ea5">'
        "<title>a · &lt;b&gt;: 50%</title></rect>"
    )
    assert svg.rect(0, 0, 1, 1, "#000") == '<rect x="0" y="0" width="1" height="1" fill="#000"/>'
    assert svg.line(1, 2, 3, 4, class_="axis", stroke="#666", stroke_dasharray="4 3") == (
        '<line class="axis" x1="1" y1="2" x2="3" y2="4" stroke="#666" stroke-dasharray="4 3"/>'
    )
    assert svg.element("polyline", points="1,2 3,4", fill="none", stroke_width=2) == (
        '<polyline points="1,2 3,4" fill="none" stroke-width="2"/>'
    )
    assert svg.element("circle", svg.tooltip("r & s"), cx=1, cy=2, r=3.5) == (
        '<circle cx="1" cy="2" r="3.5"><title>r &amp; s</title></circle>'
    )
    assert svg.attributes(x=1, fill=None, transform='rotate(-90 12 "a")') == (
        ' x="1" transform="rotate(-90 12 &quot;a&quot;)"'
    )


def test_a_legend_entry_is_a_square_on_its_names_baseline():
    assert svg.swatch(170, 31, "#2f6db5", "label & κ") == (
        '<rect x="170" y="22" width="10" height="10" fill="#2f6db5"/>'
        '<text x="184" y="31" font-size="11">label &amp; κ</text>'
    )
