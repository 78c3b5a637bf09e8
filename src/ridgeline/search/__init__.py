"""Search over runs, tags, hyperparameters, run metadata, dates, text summaries and annotations (docs/search.md).

from ridgeline.search import Searcher
searcher = Searcher(ridgeline.open("runs"))
result = searcher.search("hparam:lr=0\\.00[1-5] AND tag:^val_")
"""

from __future__ import annotations

from ridgeline.search.engine import Hit, Searcher, SearchResult
from ridgeline.search.errors import SearchError

__all__ = ["Hit", "SearchError", "SearchResult", "Searcher"]
