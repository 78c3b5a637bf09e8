"""Structured run queries: ``hparams.lr < 0.01 and metric("val/loss").min < 0.3 and run =~ "resnet"``.

The public face of the query language for the search engine: :func:`looks_structured` (is this a query or a
pattern?), :func:`parse` (text -> :class:`Query`, or SearchError with the position it points at; the grammar is
in :mod:`ridgeline.search.query_parser`, the tree in :mod:`ridgeline.search.query_tree`) and :func:`evaluate` (the
runs a query selects). A query is compiled into closures over a per-LogDir cache of run facts
(:mod:`ridgeline.search.runfacts`), so asking again over 1,000 runs costs a few look-ups per run. Missing values
make every comparison false; ``not`` flips the result. See docs/search.md ("Run queries").
"""

from __future__ import annotations

import datetime as dt
import math
import re
from collections.abc import Callable, Sequence
from typing import Any

from ridgeline.search.errors import SearchError
from ridgeline.search.query_parser import parse
from ridgeline.search.query_tree import (
    Bool,
    Compare,
    Field,
    HParam,
    In,
    Lit,
    Metric,
    Neg,
    Node,
    Not,
    Now,
    Query,
    render,
)
from ridgeline.search.runfacts import RunFacts, facts_for, is_number
from ridgeline.store.logdir import LogDir

__all__ = ["Query", "SearchError", "evaluate", "looks_structured", "parse", "render"]

_STRUCTURED_HINT = re.compile(
    r"^\s*(?:not\s+|\()*\s*(?:hparams\s*[.\[]|metric\s*\(|order\s+by\b|limit\s+\d"
    r"|(?:run|started|ended|duration|status)\s*(?:[<>]|in\b))|==|!=|=~|!~"
)


def looks_structured(text: str) -> bool:
    """Whether ``text`` is meant as a run query rather than a search pattern: it parses as one, or it starts like
    one (``hparams.``, ``metric(``, ``order by``) or uses ``==``, ``!=``, ``=~``, ``!~`` (so a query with a
    mistake gets the query's error message instead of silently searching for it as a pattern)."""
    try:
        parse(text)
    except SearchError:
        return bool(_STRUCTURED_HINT.search(text))
    return True


# --- evaluation -------------------------------------------------------------------------------------------------
def evaluate(query: Query | str, logdir: LogDir, index: object = None, runs: Sequence[str] | None = None) -> list[str]:
    """The runs the query selects: in run order, or in its ``order by`` order (keep it), at most ``limit``. A ranking
    leaves out a torch ``add_hparams`` trial selected with the run it was written under (one training run).

    ``index`` is accepted for the search engine's dispatcher and unused: queries read the runs' data through a
    per-LogDir cache (``ridgeline.search.runfacts``). ``runs`` restricts the candidates (default: every run)."""
    if isinstance(query, str):
        query = parse(query)
    facts = facts_for(logdir)
    facts.refresh()
    compiler = _Compiler(facts, dt.datetime.now().timestamp())
    selected = logdir.runs() if runs is None else list(runs)
    if query.where is not None:
        condition = compiler.compile(query.where)
        selected = [run for run in selected if _truth(condition(run))]
    for key, desc in reversed(query.order):
        value = compiler.compile(key)
        values = {run: value(run) for run in selected}
        selected = [run for run in selected if _rankable(values[run])]
        selected.sort(key=lambda run: _sort_key(values[run]), reverse=desc)
    if query.order:
        # A torch add_hparams trial reads its curves from the run it was written under: ranked together they are
        # one training run counted twice ("best 5" would be 3 runs), so it is ranked once, as the run holding them.
        chosen = set(selected)
        selected = [run for run in selected if facts.curves_parent(run) not in chosen]
    return selected if query.limit is None else selected[: query.limit]


def _rankable(value: object) -> bool:
    return is_number(value) or isinstance(value, str)


def _sort_key(value: Any) -> tuple[int, Any]:
    return (1, value) if isinstance(value, str) else (0, float(value))


def _truth(value: object) -> bool:
    return value is True or (is_number(value) and not isinstance(value, bool) and value != 0)


Getter = Callable[[str], Any]


class _Compiler:
    """Turns a syntax tree into one closure per node, ``run name -> value`` (no per-run dispatch on node types)."""

    def __init__(self, facts: RunFacts, now: float) -> None:
        self.facts = facts
        self.now = now
        today = dt.datetime.fromtimestamp(now).replace(hour=0, minute=0, second=0, microsecond=0)
        self.today = today.timestamp()

    def compile(self, node: Node) -> Getter:
        if isinstance(node, Lit | Now):
            constant = node.value if isinstance(node, Lit) else self.now if node.name == "now" else self.today
            return lambda run: constant
        if isinstance(node, Field):
            return self.field(node.name)
        if isinstance(node, HParam):
            hparams, name = self.facts.hparams, node.name
            return lambda run: hparams(run).get(name)
        if isinstance(node, Metric):
            metric, tags, stat = self.facts.metric, node.tags, node.stat

            def statistic(run: str) -> Any:
                stats = metric(run, tags)
                return None if stats is None else getattr(stats, stat)

            return statistic
        if isinstance(node, Compare):
            left, right, compare = self.compile(node.left), self.compile(node.right), _comparator(node)
            return lambda run: compare(left(run), right(run))
        if isinstance(node, Bool):
            items = [self.compile(item) for item in node.items]
            if node.op == "and":
                return lambda run: all(_truth(item(run)) for item in items)
            return lambda run: any(_truth(item(run)) for item in items)
        if isinstance(node, Not):
            operand = self.compile(node.operand)
            return lambda run: not _truth(operand(run))
        if isinstance(node, In):
            left, values, negated = self.compile(node.left), [item.value for item in node.values], node.negated

            def member(run: str) -> bool:
                value = left(run)
                return value is not None and any(_equal(value, item) for item in values) != negated

            return member
        if isinstance(node, Neg):
            operand = self.compile(node.operand)
            return lambda run: -value if is_number(value := operand(run)) else None
        left, right, apply = self.compile(node.left), self.compile(node.right), _ARITH[node.op]
        return lambda run: apply(left(run), right(run))

    def field(self, name: str) -> Getter:
        facts = self.facts
        if name == "run":
            return lambda run: run
        if name == "started":
            return lambda run: facts.times(run)[0]
        if name == "ended":
            return lambda run: facts.times(run)[1]
        if name == "duration":

            def duration(run: str) -> float | None:
                started, ended = facts.times(run)
                return ended - started if started is not None and ended is not None else None

            return duration
        if name == "status":
            return facts.status
        which = 0 if name == "has_nan" else 1
        return lambda run: facts.nonfinite(run)[which]


def _numeric(op: Callable[[float, float], float]) -> Callable[[Any, Any], Any]:
    def apply(left: Any, right: Any) -> Any:
        if not (is_number(left) and is_number(right)):
            return None
        try:
            return op(float(left), float(right))
        except ZeroDivisionError:
            return None

    return apply


_ARITH = {
    "+": _numeric(lambda a, b: a + b),
    "-": _numeric(lambda a, b: a - b),
    "*": _numeric(lambda a, b: a * b),
    "/": _numeric(lambda a, b: a / b),
}


def _equal(left: Any, right: Any) -> bool:
    if isinstance(left, str) or isinstance(right, str):
        return isinstance(left, str) and isinstance(right, str) and left == right
    return is_number(left) and is_number(right) and float(left) == float(right)


def _comparator(node: Compare) -> Callable[[Any, Any], bool]:
    """The comparison of ``node`` with missing values and NaN false under every operator."""
    op, pattern = node.op, node.pattern

    def compare(left: Any, right: Any) -> bool:
        if left is None or right is None or (isinstance(left, float) and math.isnan(left)):
            return False
        if isinstance(right, float) and math.isnan(right):
            return False
        if op in ("=~", "!~"):
            return isinstance(left, str) and (pattern.search(left) is not None) == (op == "=~")
        if op == "==":
            return _equal(left, right)
        if op == "!=":
            return not _equal(left, right)
        if isinstance(left, str) != isinstance(right, str):
            return False
        if not isinstance(left, str):
            left, right = float(left), float(right)
        return bool(_ORDER[op](left, right))

    return compare


_ORDER: dict[str, Callable[[Any, Any], Any]] = {
    "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b,
}
