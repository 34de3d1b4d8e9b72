"""Simple inline TeX spelled as text: the parser keeps inline math as "$alttext$", and an
annotator reads "±" faster than "\\pm" (a formula it cannot spell stays as TeX)."""

from __future__ import annotations

import re

# fmt: off
TEX_SYMBOLS = {
    "alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "epsilon": "ε", "varepsilon": "ε",
    "zeta": "ζ", "eta": "η", "theta": "θ", "kappa": "κ", "lambda": "λ", "mu": "μ", "nu": "ν",
    "xi": "ξ", "pi": "π", "rho": "ρ", "sigma": "σ", "tau": "τ", "phi": "φ", "varphi": "φ",
    "chi": "χ", "psi": "ψ", "omega": "ω", "Gamma": "Γ", "Delta": "Δ", "Theta": "Θ",
    "Lambda": "Λ", "Sigma": "Σ", "Phi": "Φ", "Psi": "Ψ", "Omega": "Ω",
    "pm": "±", "mp": "∓", "times": "×", "cdot": "·", "div": "÷", "leq": "≤", "le": "≤",
    "geq": "≥", "ge": "≥", "neq": "≠", "ne": "≠", "approx": "≈", "sim": "~", "simeq": "≃",
    "infty": "∞", "to": "→", "rightarrow": "→", "leftarrow": "←", "Rightarrow": "⇒",
    "uparrow": "↑", "downarrow": "↓", "checkmark": "✓", "dagger": "†", "ddagger": "‡",
    "star": "⋆", "ast": "∗", "circ": "∘", "degree": "°", "in": "∈", "cap": "∩", "cup": "∪",
    "ell": "ℓ", "partial": "∂", "nabla": "∇", "sum": "Σ", "prod": "Π", "%": "%", "&": "&",
    "#": "#", "_": "_", "$": "$", ",": "\u2009", ";": " ", ":": " ", "!": "", " ": " ",
    "quad": " ", "qquad": "  ", "ldots": "…", "cdots": "⋯", "dots": "…", "prime": "′",
}
# fmt: on
TEX_OPERATORS = frozenset(
    "pm mp times div leq le geq ge neq ne approx simeq to rightarrow leftarrow Rightarrow".split()
)
TEX_WRAPPERS = re.compile(
    r"\\(?:mathbf|mathrm|mathit|mathsf|mathtt|boldsymbol|bm|text|textbf|textit|textrm|texttt"
    r"|textsc|operatorname|mathcal|mathbb|hat|bar|tilde|overline|underline|emph|mbox)\s*"
    r"\{([^{}]*)\}"
)
SUPERSCRIPTS = str.maketrans("0123456789+-=()n", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾ⁿ")
SUBSCRIPTS = str.maketrans("0123456789+-=()", "₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎")
INLINE_MATH = re.compile(r"(?<!\\)\$([^$]+?)(?<!\\)\$")


def _tex_to_text(tex: str) -> str | None:
    out = tex
    for _ in range(4):  # nested wrappers: \mathbf{\text{x}}
        out = TEX_WRAPPERS.sub(r"\1", out)
    out = re.sub(r"\^\{?([0-9+\-=()n]+)\}?", lambda m: m.group(1).translate(SUPERSCRIPTS), out)
    out = re.sub(r"_\{?([0-9+\-=()]+)\}?", lambda m: m.group(1).translate(SUBSCRIPTS), out)
    out = re.sub(r"\^\{?\\circ\}?", "°", out)

    def symbol(m: re.Match[str]) -> str:
        name = m.group(1)
        if name in TEX_OPERATORS:
            return f" {TEX_SYMBOLS[name]} "  # TeX spaces binary operators and relations
        return TEX_SYMBOLS.get(name, m.group(0))

    out = re.sub(r"\\([A-Za-z]+|[%&#_$,;:! ])", symbol, out)
    if "\\" in out or "^" in out or "_" in out:
        return None  # something we cannot spell: better the TeX source than a wrong reading
    out = out.replace("{", "").replace("}", "")
    return re.sub(r"\s+", " ", out).strip()


def readable_math(text: str) -> str:
    """Spell simple inline TeX ("$0.81 \\pm 0.02$") as text ("0.81 ± 0.02"); leave the rest."""

    def replace(m: re.Match[str]) -> str:
        if m.group(1) != m.group(1).strip():
            return m.group(0)  # "$5 and $6" is prose about dollars, not math
        spelled = _tex_to_text(m.group(1))
        return m.group(0) if spelled is None else spelled

    return INLINE_MATH.sub(replace, text)
