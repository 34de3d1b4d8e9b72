"""arXiv/LaTeXML HTML in, a paper's context out: pure functions, no Django, no network."""

from papers.parsing.document import Cell, Element, Panel, ParsedPaper, ParseError, Section
from papers.parsing.latexml import parse_paper

__all__ = ["Cell", "Element", "Panel", "ParsedPaper", "ParseError", "Section", "parse_paper"]
