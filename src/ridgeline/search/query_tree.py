"""The run query language's syntax tree: one node class per construct, :class:`Query` (a parsed query), the fields
a query can name with the kind of value each holds, and :func:`render`, the canonical text of a node (what the
user sees as the query that ran). :mod:`ridgeline.search.query_parser` builds these; :mod:`ridgeline.search.query`
evaluates them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Literal

from ridgeline.search.query_tokens import KEYWORDS

Kind = Literal["num", "str", "bool", "time", "any"]

FIELDS: dict[str, Kind] = {
    "run": "str",
    "started": "time",
    "ended": "time",
    "duration": "num",
    "status": "str",
    "has_nan": "bool",
    "has_inf": "bool",
}


@dataclass(frozen=True, slots=True)
class Lit:
    value: float | str | bool
    text: str


@dataclass(frozen=True, slots=True)
class Now:
    name: Literal["now", "today"]


@dataclass(frozen=True, slots=True)
class Field:
    name: str


@dataclass(frozen=True, slots=True)
class HParam:
    name: str


@dataclass(frozen=True, slots=True)
class Metric:
    tags: tuple[str, ...]
    stat: str


@dataclass(frozen=True, slots=True)
class Arith:
    op: str
    left: Node
    right: Node


@dataclass(frozen=True, slots=True)
class Neg:
    operand: Node


@dataclass(frozen=True, slots=True)
class Compare:
    op: str
    left: Node
    right: Node
    pattern: Any = None  # the compiled RE2 pattern of =~ and !~


@dataclass(frozen=True, slots=True)
class In:
    left: Node
    values: tuple[Lit, ...]
    negated: bool


@dataclass(frozen=True, slots=True)
class Bool:
    op: Literal["and", "or"]
    items: tuple[Node, ...]


@dataclass(frozen=True, slots=True)
class Not:
    operand: Node


Node = Lit | Now | Field | HParam | Metric | Arith | Neg | Compare | In | Bool | Not


@dataclass(frozen=True, slots=True)
class Query:
    """A parsed query: the condition (None: every run), the ordering keys (node, descending) and the limit."""

    where: Node | None
    order: tuple[tuple[Node, bool], ...] = ()
    limit: int | None = None
    text: str = field(default="", compare=False)

    def __str__(self) -> str:
        parts = [render(self.where)] if self.where is not None else []
        if self.order:
            parts.append("order by " + ", ".join(render(key) + (" desc" if desc else "") for key, desc in self.order))
        if self.limit is not None:
            parts.append(f"limit {self.limit}")
        return " ".join(parts)


def render(node: Node, parent: int = 0) -> str:
    """Canonical text of a node (what the user sees as the query that ran)."""
    if isinstance(node, Lit):
        if isinstance(node.value, str):
            return '"' + node.value.replace("\\", "\\\\").replace('"', '\\"') + '"'
        return node.text
    if isinstance(node, Now):
        return node.name
    if isinstance(node, Field):
        return node.name
    if isinstance(node, HParam):
        plain = re.fullmatch(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*", node.name) and node.name.split(".")[0] not in KEYWORDS
        return f"hparams.{node.name}" if plain else f"hparams[{render(Lit(node.name, ''))}]"
    if isinstance(node, Metric):
        return f"metric({', '.join(render(Lit(tag, '')) for tag in node.tags)}).{node.stat}"
    if isinstance(node, Arith):
        level = 4 if node.op in "+-" else 5
        text = f"{render(node.left, level)} {node.op} {render(node.right, level + 1)}"
        return f"({text})" if parent > level else text
    if isinstance(node, Neg):
        return f"-{render(node.operand, 6)}"
    if isinstance(node, Compare):
        return _wrap(f"{render(node.left, 4)} {node.op} {render(node.right, 4)}", parent, 3)
    if isinstance(node, In):
        values = ", ".join(render(value) for value in node.values)
        return _wrap(f"{render(node.left, 4)} {'not in' if node.negated else 'in'} [{values}]", parent, 3)
    if isinstance(node, Not):
        return _wrap(f"not {render(node.operand, 3)}", parent, 3)
    level = 1 if node.op == "or" else 2
    return _wrap(f" {node.op} ".join(render(item, level + 1) for item in node.items), parent, level)


def _wrap(text: str, parent: int, level: int) -> str:
    return f"({text})" if parent > level else text
