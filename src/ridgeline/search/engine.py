"""``Searcher``: answers a search over a LogDir: a question, a structured run query, or the pattern language.

Dispatch: a plain-language question (``ridgeline.search.plain``) is translated into a run query; a run
query (``ridgeline.search.query``) selects runs; anything else is the pattern language
(``ridgeline.search.patterns``) evaluated over the index (``ridgeline.search.index``).

Boolean operators work at the run level: a run is selected when the expression is true of it (``tag:^val_ AND
hparam:lr=0.001``: runs with a val_ tag and that learning rate). The hits are the entries matched by the terms
that are not negated, in the selected runs; an expression of negated terms only lists the selected runs.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

import numpy as np

from ridgeline.search import plain, query
from ridgeline.search.errors import SearchError
from ridgeline.search.index import NO_STEP, Index
from ridgeline.search.patterns import (
    FIELDS,
    And,
    Node,
    Not,
    Term,
    compile_literal,
    compile_pattern,
    exact_literal,
    normalise,
    parse,
    required_literal,
)

Kind = Literal["run", "tag", "hparam", "text", "annotation", "date", "metadata", "note", "log"]
Mode = Literal["pattern", "query", "question"]
_PROGRAMS = 256  # compiled patterns kept (the page searches as the user types)


@dataclass(frozen=True, slots=True)
class Hit:
    """One matching entry. ``tag``: the tag (tag and text hits), "start"/"end" for a date hit, "stdout"/"stderr"
    for a log hit, else None; ``step``: the step of a text, annotation or log hit (None for a console line
    printed before any step), else None."""

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


# Longer queries are refused: a pattern's cost grows with its length times the texts' (a 30,000-character literal
# kept the server busy for 20 s), and no query a person writes comes near this.
MAX_QUERY = 2_000


class Searcher:
    """Search over one LogDir (or over an Index built directly, as the benchmark does: ``logdir=None``).

    ``search`` refreshes the index first when ingest's generation moved; ``refresh`` does that alone. Both are
    safe to call from several threads (the server's)."""

    def __init__(self, logdir: Any | None, *, index: Index | None = None) -> None:
        self.logdir = logdir
        self.index = index if index is not None else Index()
        self._lock = threading.RLock()
        self._programs: OrderedDict[tuple[str, bool], tuple[Any, Any, tuple[bytes, bool] | None]] = OrderedDict()
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
        if len(q) > MAX_QUERY:
            raise SearchError(f"the query is {len(q):,} characters long; at most {MAX_QUERY:,} are searched", MAX_QUERY)
        with self._lock:
            self.refresh()
            try:
                result = self._dispatch(q.strip(), limit, ignore_case)
            except RecursionError:  # the parsers and the evaluation recurse once per level of nesting
                raise SearchError("the query nests too deeply (parentheses, NOT or operators)", None) from None
        result.took_ms = (time.perf_counter() - started) * 1000
        return result

    # --- dispatch -----------------------------------------------------------------------------------------------
    def _dispatch(self, q: str, limit: int | None, ignore_case: bool) -> SearchResult:
        if not q:
            return SearchResult(query="", mode="pattern")
        if plain.looks_like_question(q):
            translated = plain.translate(q, self.logdir)
            if translated is None:
                raise SearchError(plain.suggestion(q), None)
            return self._structured(translated, "question", limit)
        if query.looks_structured(q):
            return self._structured(q, "query", limit)
        return self._pattern(q, limit, ignore_case)

    def _structured(self, text: str, mode: Mode, limit: int | None) -> SearchResult:
        if self.logdir is None:
            raise SearchError("run queries need a log directory (this index was built without one)", None)
        # In run order, or ranked when the query says "order by": as evaluate returns them.
        runs = list(query.evaluate(query.parse(text), self.logdir, self.index))
        shown = runs if limit is None else runs[:limit]
        hits = [Hit("run", run, None, run, None) for run in shown]
        return SearchResult(text, mode, hits, runs, len(runs), len(shown) < len(runs))

    # --- the pattern language -----------------------------------------------------------------------------------
    def _pattern(self, q: str, limit: int | None, ignore_case: bool) -> SearchResult:
        node = parse(q)
        index = self.index
        run_alive = index.alive_runs()
        matched: dict[int, dict[str, tuple[np.ndarray, np.ndarray]]] = {}  # id(term) -> field -> (entries, runs)

        def entries(term: Term) -> dict[str, tuple[np.ndarray, np.ndarray]]:
            found = matched.get(id(term))
            if found is None:
                program, literal, exact = self._program(term, ignore_case)
                scope = FIELDS if term.field is None else (term.field,)
                found = {}
                for name in scope:
                    field_index = index.fields[name]
                    ids = field_index.entries_of(field_index.scan(program, literal, exact), run_alive)
                    if len(ids):
                        found[name] = (ids, field_index.arrays()[1][ids])
                matched[id(term)] = found
            return found

        def runs_of(node: Node) -> np.ndarray:
            if isinstance(node, Term):
                selected = np.zeros(len(run_alive), dtype=np.bool_)
                for _, runs in entries(node).values():
                    selected[runs] = True
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

        # One term: its hits are the answer, no run selection to apply (skips a pass over every hit).
        selected = run_alive if isinstance(node, Term) else runs_of(node)
        positive = _positive_terms(node)
        if not positive:  # only negated terms: the runs themselves are the answer
            names = self._run_names(np.flatnonzero(selected))
            shown = names if limit is None else names[:limit]
            listed = [Hit("run", name, None, name, None) for name in shown]
            return SearchResult(normalise(node), "pattern", listed, names, len(names), len(shown) < len(names))

        per_field: dict[str, list[tuple[np.ndarray, np.ndarray]]] = {}
        for term in positive:
            for name, found in entries(term).items():
                per_field.setdefault(name, []).append(found)
        hits: list[Hit] = []
        total = 0
        hit_runs = np.zeros(len(run_alive), dtype=np.bool_)
        room = limit
        for name in FIELDS:
            if name not in per_field:
                continue
            field_index = index.fields[name]
            parts = per_field[name]
            if len(parts) == 1:
                ids, runs = parts[0]
            else:
                ids = np.unique(np.concatenate([part[0] for part in parts]))
                runs = field_index.arrays()[1][ids]
            if not isinstance(node, Term):  # a boolean expression: only the hits in the runs it selects
                keep = selected[runs]
                ids, runs = ids[keep], runs[keep]
            if not len(ids):
                continue
            total += len(ids)
            counts = np.bincount(runs, minlength=len(run_alive))
            hit_runs |= counts > 0
            if room is None or room > 0:
                first = _first_hits(ids, runs, counts, index, room)
                hits.extend(self._hits(name, first))
                if room is not None:
                    room -= len(first)
        names = self._run_names(np.flatnonzero(hit_runs))
        return SearchResult(normalise(node), "pattern", hits, names, total, len(hits) < total)

    def _run_names(self, runs: np.ndarray) -> list[str]:
        """The names of ``runs`` (ids) in run order."""
        rank, ordered = self.index.rank(), self.index.ordered_names()
        chosen = np.zeros(len(ordered) + 1, dtype=np.bool_)
        chosen[rank[runs]] = True
        result: list[str] = ordered[np.flatnonzero(chosen[: len(ordered)])].tolist()
        return result

    def _hits(self, name: str, entries: np.ndarray) -> list[Hit]:
        field_index = self.index.fields[name]
        entry_value, entry_run, entry_tag, entry_step, _ = field_index.arrays()
        runs, tags, values = self.index.run_names, self.index.tag_names, field_index.values
        return [
            Hit(
                name,  # type: ignore[arg-type]
                runs[run],
                tags[tag] if tag >= 0 else None,
                values[value],
                None if step == NO_STEP else step,
            )
            for run, tag, value, step in zip(
                entry_run[entries].tolist(),
                entry_tag[entries].tolist(),
                entry_value[entries].tolist(),
                entry_step[entries].tolist(),
                strict=True,
            )
        ]

    def _program(self, term: Term, ignore_case: bool) -> tuple[Any, Any, tuple[bytes, bool] | None]:
        """The term's compiled RE2 program, an RE2 program for a literal its matches contain (None if unknown),
        and the plain string the pattern is (None if it is more than that)."""
        key = (term.pattern, ignore_case)
        program = self._programs.get(key)
        if program is None:
            compiled = compile_pattern(term, ignore_case=ignore_case)
            literal = None if ignore_case else required_literal(term.pattern)
            exact = None if ignore_case else exact_literal(term.pattern)
            program = (compiled, compile_literal(literal) if literal is not None else None, exact)
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


def _first_hits(ids: np.ndarray, runs: np.ndarray, counts: np.ndarray, index: Index, room: int | None) -> np.ndarray:
    """The first ``room`` entries (all with None) in run order, then entry order, without sorting all of them:
    count hits per run, keep the first runs in run order that hold ``room`` hits, sort only their entries."""
    rank = index.rank()
    if room is not None and room < len(ids):
        order = index.run_order()
        needed = int(np.searchsorted(np.cumsum(counts[order]), room)) + 1
        wanted = np.zeros(len(counts), dtype=np.bool_)
        wanted[order[:needed]] = True
        keep = wanted[runs]
        ids, runs = ids[keep], runs[keep]
    chosen = np.lexsort((ids, rank[runs]))
    return ids[chosen][:room] if room is not None else ids[chosen]


def _positive_terms(node: Node, negated: bool = False) -> list[Term]:
    if isinstance(node, Term):
        return [] if negated else [node]
    if isinstance(node, Not):
        return _positive_terms(node.operand, not negated)
    return [term for operand in node.operands for term in _positive_terms(operand, negated)]


__all__ = ["Hit", "SearchResult", "Searcher"]
