"""Search over the rows of a table: the embedding projector's metadata (``metadata.tsv``, one row per point).

The query is the pattern language of :mod:`ridgeline.search.patterns`: RE2 patterns combined with AND / OR / NOT
and parentheses. The field is ``meta:`` (``metadata:``), or none: a term matches a row when it matches the row's
value in one of the searched columns (every column, or the one the caller names). The boolean operators work at
the row level, as they work at the run level over a log directory: ``meta:^cat NOT meta:kitten`` selects the rows
whose value starts with "cat" and none of whose values holds "kitten".

Each column is given dictionary-encoded (its distinct values, and each row's code): a term runs RE2 once over the
column's distinct values joined in one buffer (a :class:`~ridgeline.search.fields.FieldIndex`), and the matching
values become matching rows in one vectorised look-up, so a million rows answer in milliseconds.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ridgeline.search.errors import SearchError
from ridgeline.search.fields import FieldIndex
from ridgeline.search.patterns import And, Node, Not, Term, compile_pattern, parse

__all__ = ["RowSearch"]

FIELD = "metadata"  # written meta: (patterns.ALIASES) or metadata:


@dataclass(frozen=True, slots=True)
class _Column:
    index: FieldIndex
    text_of_value: np.ndarray  # the FieldIndex text id of each distinct value
    codes: np.ndarray  # each row's value id


class RowSearch:
    """The rows of a dictionary-encoded table that a query selects.

    ``columns`` maps each column's name to ``(values, codes)``: its distinct values, and for each row the index of
    its value (int array of one length for every column)."""

    def __init__(self, columns: Mapping[str, tuple[Sequence[str], np.ndarray]]) -> None:
        self._columns: dict[str, _Column] = {}
        self.rows = 0
        for name, (values, codes) in columns.items():
            index = FieldIndex(name)
            text_of_value = np.array([index.add(0, value) for value in values], dtype=np.int64)
            text_of_value = index.arrays()[0][text_of_value].astype(np.int64)
            self._columns[name] = _Column(index, text_of_value, np.asarray(codes))
            self.rows = len(codes)

    def matching(self, query: str, *, column: str | None = None, ignore_case: bool = True) -> np.ndarray:
        """The indices of the rows ``query`` selects, ascending (none for an empty query). ``column`` limits the
        search to that column. A SearchError (pointing into the query) when it does not parse, holds a pattern
        RE2 rejects, or scopes a term to another field than ``meta:``."""
        if column is not None and column not in self._columns:
            raise SearchError(f"no metadata column {column!r} (the columns: {', '.join(self._columns)})", None)
        if not query.strip():
            return np.empty(0, dtype=np.int64)
        node = parse(query)
        searched = [self._columns[column]] if column is not None else list(self._columns.values())
        return np.flatnonzero(self._evaluate(node, searched, ignore_case))

    def _evaluate(self, node: Node, columns: list[_Column], ignore_case: bool) -> np.ndarray:
        if isinstance(node, Term):
            return self._term(node, columns, ignore_case)
        if isinstance(node, Not):
            return ~self._evaluate(node.operand, columns, ignore_case)
        masks = [self._evaluate(operand, columns, ignore_case) for operand in node.operands]
        combined = masks[0]
        for mask in masks[1:]:
            combined = combined & mask if isinstance(node, And) else combined | mask
        return combined

    def _term(self, term: Term, columns: list[_Column], ignore_case: bool) -> np.ndarray:
        if term.field not in (None, FIELD):
            message = f"{term.field}: is not a field of the embedding's metadata: write meta:PATTERN, or just PATTERN"
            raise SearchError(message, term.position)
        program = compile_pattern(term, ignore_case=ignore_case)
        selected = np.zeros(self.rows, dtype=np.bool_)
        for column in columns:
            texts = column.index.scan(program)
            if len(texts):
                hit = np.zeros(len(column.index.values), dtype=np.bool_)
                hit[texts] = True
                selected |= hit[column.text_of_value][column.codes]
        return selected
