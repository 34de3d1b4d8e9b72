"""The papers app's models: a paper and its context, and (crawl.py) crawl runs."""

from papers.models.crawl import CrawlEvent, CrawlItem, CrawlListedId, CrawlRun
from papers.models.paper import Element, ElementPanel, Paper, Section, work_citing

__all__ = [
    "CrawlEvent",
    "CrawlItem",
    "CrawlListedId",
    "CrawlRun",
    "Element",
    "ElementPanel",
    "Paper",
    "Section",
    "work_citing",
]
