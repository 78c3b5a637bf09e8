"""``Searcher``: answers a search over a LogDir: a question, a structured run query, or the pattern language.

Dispatch: a plain-language question (``ridgeline.search.plain``) is translated into a structured query; a
structured query (``ridgeline.search.query``) selects runs; anything else is the pattern language
(``ridgeline.search.patterns``) evaluated over the index (``ridgeline.search.index``).

Boolean operators work at the run level: a run is selected when the expression is true of it (``tag:^val_ AND
hparam:lr=0.001``: runs with a val_ tag and that learning rate). The hits are the entries matched by the terms
that are not negated, in the selected runs; an expression of negated terms only lists the selected runs.
"""

from __future__ import annotations

import importlib
import threading
import time
from collections import OrderedDict
from dataclasses import asdict, dataclass, field
from types import ModuleType
from typing import Any, Literal

import numpy as np

from ridgeline.search.errors import SearchError
from ridgeline.search.index import NO_STEP, Index
from ridgeline.search.patterns import FIELDS, And, Node, Not, Term, compile_pattern, normalise, parse

Kind = Literal["run", "tag", "hparam", "text", "annotation", "date", "metadata"]
Mode = Literal["pattern", "query", "question"]
_PROGRAMS = 256  # compiled patterns kept (the page searches as the user types)


@dataclass(frozen=True, slots=True)
class Hit:
    """One matching entry. ``tag``: the tag (tag and text hits), "start"/"end" for a date hit, else None;
    ``step``: the step of a text or annotation hit, else None."""

    kind: Kind
    run: str
    tag: str | None
    text: str
    step: int | None


@dataclass(slots=True)
class SearchResult:
    """What ``/api/search`` returns: ``query`` as run (normalised, or a question's translation), its ``mode``,
    the first ``limit`` hits (by kind, then run order), the distinct ``runs`` selected, the ``total`` number of
    hits, whether ``hits`` was cut at the limit, and the time taken."""

    query: str
    mode: Mode
    hits: list[Hit] = field(default_factory=list)
    runs: list[str] = field(default_factory=list)
    total: int = 0
    truncated: bool = False
    took_ms: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


class Searcher:
    """Search over one LogDir (or over an Index built directly, as the benchmark does: ``logdir=None``).

    ``search`` refreshes the index first when ingest's generation moved; ``refresh`` does that alone. Both are
    safe to call from several threads (the server's)."""

    def __init__(self, logdir: Any | None, *, index: Index | None = None) -> None:
        self.logdir = logdir
        self.index = index if index is not None else Index()
        self._lock = threading.RLock()
        self._programs: OrderedDict[tuple[str, bool], Any] = OrderedDict()
        self.refresh()

    def refresh(self) -> bool:
        """Index what ingest added since the last refresh (only the runs and series that changed)."""
        if self.logdir is None:
            return False
        with self._lock:
            return self.index.refresh(self.logdir)

    def search(self, q: str, *, limit: int | None = 200, ignore_case: bool = False) -> SearchResult:
        started = time.perf_counter()
        if limit is not None and limit < 0:
            raise SearchError("limit must be 0 or more", None)
        with self._lock:
            self.refresh()
            result = self._dispatch(q.strip(), limit, ignore_case)
        result.took_ms = (time.perf_counter() - started) * 1000
        return result

    # --- dispatch -----------------------------------------------------------------------------------------------
    def _dispatch(self, q: str, limit: int | None, ignore_case: bool) -> SearchResult:
        if not q:
            return SearchResult(query="", mode="pattern")
        plain = _optional("ridgeline.search.plain")
        query = _optional("ridgeline.search.query")
        if plain is not None and query is not None and plain.looks_like_question(q):
            translated = plain.translate(q)
            if translated is None:
                raise SearchError(
                    "this question could not be translated into a query; write it as a query, e.g. "
                    '`hparams.lr < 0.01 and metric("val/loss").min < 0.3 and run =~ "resnet"`, '
                    "or search a pattern like `run:resnet`",
                    None,
                )
            return self._structured(translated, "question", limit, query)
        if query is not None and query.looks_structured(q):
            return self._structured(q, "query", limit, query)
        return self._pattern(q, limit, ignore_case)

    def _structured(self, text: str, mode: Mode, limit: int | None, query: ModuleType) -> SearchResult:
        runs = list(query.evaluate(query.parse(text), self.logdir, self.index))
        order = {name: rank for rank, name in enumerate(sorted(runs))}
        runs.sort(key=order.__getitem__)
        shown = runs if limit is None else runs[:limit]
        hits = [Hit("run", run, None, run, None) for run in shown]
        return SearchResult(text, mode, hits, runs, len(runs), len(shown) < len(runs))

    # --- the pattern language -----------------------------------------------------------------------------------
    def _pattern(self, q: str, limit: int | None, ignore_case: bool) -> SearchResult:
        node = parse(q)
        index = self.index
        run_alive = index.alive_runs()
        matched: dict[int, dict[str, np.ndarray]] = {}  # id(term) -> field -> entry ids

        def entries(term: Term) -> dict[str, np.ndarray]:
            found = matched.get(id(term))
            if found is None:
                program = self._program(term, ignore_case)
                scope = FIELDS if term.field is None else (term.field,)
                found = {}
                for name in scope:
                    field_index = index.fields[name]
                    values = field_index.scan(program)
                    found[name] = field_index.entries_of(values, run_alive)
                matched[id(term)] = found
            return found

        def runs_of(node: Node) -> np.ndarray:
            if isinstance(node, Term):
                selected = np.zeros(len(run_alive), dtype=np.bool_)
                for name, ids in entries(node).items():
                    selected[index.fields[name].arrays()[1][ids]] = True
                return selected
            if isinstance(node, Not):
                return run_alive & ~runs_of(node.operand)
            masks = [runs_of(operand) for operand in node.operands]
            combined = masks[0].copy()
            for mask in masks[1:]:
                if isinstance(node, And):
                    combined &= mask
                else:
                    combined |= mask
            return combined

        selected = runs_of(node)
        positive = _positive_terms(node)
        rank = index.rank()
        if not positive:  # only negated terms: the runs themselves are the answer
            chosen = np.flatnonzero(selected)
            chosen = chosen[np.argsort(rank[chosen], kind="stable")]
            names = [index.run_names[run] for run in chosen.tolist()]
            shown = names if limit is None else names[:limit]
            listed = [Hit("run", name, None, name, None) for name in shown]
            return SearchResult(normalise(node), "pattern", listed, names, len(names), len(shown) < len(names))

        per_field: dict[str, list[np.ndarray]] = {}
        for term in positive:
            for name, ids in entries(term).items():
                per_field.setdefault(name, []).append(ids)
        hits: list[Hit] = []
        total = 0
        hit_runs = np.zeros(len(run_alive), dtype=np.bool_)
        room = limit
        for name in FIELDS:
            if name not in per_field:
                continue
            field_index = index.fields[name]
            parts = per_field[name]
            ids = np.unique(np.concatenate(parts)) if len(parts) > 1 else parts[0]
            entry_value, entry_run, entry_tag, entry_step, _ = field_index.arrays()
            runs = entry_run[ids]
            keep = selected[runs]
            ids, runs = ids[keep], runs[keep]
            total += len(ids)
            hit_runs[runs] = True
            if (room is not None and room <= 0) or not len(ids):
                continue
            keys = rank[runs] * (1 << 32) + ids
            take = len(ids) if room is None else min(room, len(ids))
            if take < len(ids):
                first = np.argpartition(keys, take - 1)[:take]
                order = first[np.argsort(keys[first])]
            else:
                order = np.argsort(keys)
            for entry in ids[order].tolist():
                tag = int(entry_tag[entry])
                step = int(entry_step[entry])
                hits.append(
                    Hit(
                        name,  # type: ignore[arg-type]
                        index.run_names[int(entry_run[entry])],
                        index.tag_names[tag] if tag >= 0 else None,
                        field_index.values[int(entry_value[entry])],
                        None if step == NO_STEP else step,
                    )
                )
            if room is not None:
                room -= take
        chosen = np.flatnonzero(hit_runs)
        chosen = chosen[np.argsort(rank[chosen], kind="stable")]
        names = [index.run_names[run] for run in chosen.tolist()]
        return SearchResult(normalise(node), "pattern", hits, names, total, len(hits) < total)

    def _program(self, term: Term, ignore_case: bool) -> Any:
        key = (term.pattern, ignore_case)
        program = self._programs.get(key)
        if program is None:
            program = compile_pattern(term, ignore_case=ignore_case)
            self._programs[key] = program
            if len(self._programs) > _PROGRAMS:
                self._programs.popitem(last=False)
        else:
            self._programs.move_to_end(key)
        return program

    def runs_matching(self, field_name: str | None, pattern: str, *, ignore_case: bool = False) -> list[str]:
        """The runs (in run order) with an entry of ``field_name`` (None = any field) matching ``pattern``: for
        the structured queries (``run =~ "resnet"``)."""
        scope = "" if field_name is None else f"{field_name}:"
        quoted = '"' + pattern.replace('"', '\\"') + '"'
        with self._lock:
            self.refresh()
            return self._pattern(scope + quoted, 0, ignore_case).runs


def _positive_terms(node: Node, negated: bool = False) -> list[Term]:
    if isinstance(node, Term):
        return [] if negated else [node]
    if isinstance(node, Not):
        return _positive_terms(node.operand, not negated)
    return [term for operand in node.operands for term in _positive_terms(operand, negated)]


def _optional(module: str) -> ModuleType | None:
    """SB's query/plain modules, when they are there (search works without them: the pattern language)."""
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as missing:
        if missing.name == module:
            return None
        raise


__all__ = ["Hit", "SearchResult", "Searcher"]
