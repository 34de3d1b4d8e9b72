"""arXiv/LaTeXML HTML in, a paper's context out: pure functions, no Django, no network."""

from papers.parsing.document import (
    Cell,
    Element,
    FloatLoss,
    PageLicence,
    Panel,
    ParsedPaper,
    ParseError,
    Section,
)
from papers.parsing.latexml import parse_paper

# Recorded on each paper the parser imports: 4 reads today's arXiv (issue 35: drawn boxes are
# text, both generator stamps, truncation judged by the document, appendix matter after an
# empty appendix heading, lost floats say what they hold); 3 strips control characters, reads no number
# longer than 32 characters and refuses unusable URLs with a reason (issue 16); 2 reads every
# numbering style, tells what it did not keep, and survives deep nesting (issue 15); 1 is
# everything before.
PARSER_VERSION = 4

__all__ = [
    "PARSER_VERSION",
    "Cell",
    "Element",
    "FloatLoss",
    "PageLicence",
    "Panel",
    "ParsedPaper",
    "ParseError",
    "Section",
    "parse_paper",
]
