"""Search over runs, tags, hyperparameters, run metadata, dates, text summaries and annotations (docs/search.md).

    import ridgeline
    from ridgeline.search import Searcher
    searcher = Searcher(ridgeline.open("runs"))
    result = searcher.search("hparam:lr=0\\.00[1-5] AND tag:^val_")

The engine's names load on first use, so importing the ``ridgeline search`` command (every ``ridgeline`` call does)
loads neither numpy nor RE2.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ridgeline.search.errors import SearchError

if TYPE_CHECKING:
    from ridgeline.search.engine import Hit, Searcher, SearchResult

__all__ = ["Hit", "SearchError", "SearchResult", "Searcher"]


def __getattr__(name: str) -> Any:
    if name in ("Hit", "SearchResult", "Searcher"):
        from ridgeline.search import engine

        return getattr(engine, name)
    raise AttributeError(f"module 'ridgeline.search' has no attribute {name!r}")
