"""Plain text for the demo's claims: the fixtures' cells and captions hold LaTeX ("$\\tau$",
"English$\\rightarrow$X", "$E=4$"), which a claim must never hold (it is released as typed;
`annotation.writing.warnings.markup_in`). Symbols become their Unicode characters, math
delimiters and font commands go, and whatever command is left is dropped."""

from __future__ import annotations

import re

SYMBOLS = {
    "alpha": "α",
    "beta": "β",
    "gamma": "γ",
    "delta": "δ",
    "epsilon": "ε",
    "varepsilon": "ε",
    "eta": "η",
    "theta": "θ",
    "lambda": "λ",
    "mu": "μ",
    "pi": "π",
    "rho": "ρ",
    "sigma": "σ",
    "tau": "τ",
    "phi": "φ",
    "omega": "ω",
    "Delta": "Δ",
    "Sigma": "Σ",
    "rightarrow": "→",
    "to": "→",
    "leftarrow": "←",
    "leftrightarrow": "↔",
    "Rightarrow": "⇒",
    "uparrow": "↑",
    "downarrow": "↓",
    "times": "×",
    "pm": "±",
    "le": "≤",
    "leq": "≤",
    "ge": "≥",
    "geq": "≥",
    "neq": "≠",
    "approx": "≈",
    "sim": "~",
    "cdot": "·",
    "infty": "∞",
    "%": "%",
    "$": "$",
    "&": "&",
    "#": "#",
    "_": "_",
    "{": "",
    "}": "",
}
_COMMAND = re.compile(r"\\([A-Za-z]+|[%$&#_{}])")
# Font and style commands whose argument stays: \textbf{x} → x.
_STYLE = re.compile(r"\\(?:text\w*|math\w*|emph|underline|operatorname)\s*\{([^{}]*)\}")
_SCRIPT = re.compile(r"([_^])\{([^{}]*)\}")


def plain(text: str) -> str:
    """`text` without LaTeX markup, its whitespace collapsed."""
    if "\\" not in text and "$" not in text and "_{" not in text and "^{" not in text:
        return " ".join(text.split())
    text = _STYLE.sub(r"\1", text)
    text = _SCRIPT.sub(lambda m: ("_" if m.group(1) == "_" else "^") + m.group(2), text)
    text = re.sub(r"\\[()\[\]]", "", text)
    text = _COMMAND.sub(lambda m: SYMBOLS.get(m.group(1), ""), text)
    # Math delimiters: a "$" that opens or closes math (not a price such as "$5").
    text = re.sub(r"\$(?=\S)([^$\n]*?)(?<=\S)\$", r"\1", text)
    text = text.replace("{", "").replace("}", "")
    return " ".join(text.split())
