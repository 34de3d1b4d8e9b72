"""Crawling arXiv: search, peer-review classification, polite fetching, runs."""
