"""The run query language's syntax: tokenizer, syntax tree, parser and canonical rendering.

A small language in the spirit of Aim's, read by a hand-written recursive-descent parser (no Python ``eval``:
the input is only ever tokenized and matched against the grammar below) that points at the character where
the query stops making sense. See docs/search.md ("Run queries") for the user's view.

    query      := [condition] ["order" "by" key ("," key)*] ["limit" INT]
    key        := sum ["asc" | "desc"]
    condition  := conj ("or" conj)*
    conj       := neg ("and" neg)*
    neg        := "not" neg | compare
    compare    := sum [OP sum | ["not"] "in" "[" literal ("," literal)* "]"]
                  OP: < <= > >= == != =~ (RE2 match) !~
    sum        := product (("+" | "-") product)*
    product    := unary (("*" | "/") unary)*
    unary      := "-" unary | primary
    primary    := NUMBER | DURATION (7d, 12h, 30m, 45s, 2w: seconds) | STRING | true | false | now | today
                | "(" condition ")" | run | started | ended | duration | status | has_nan | has_inf
                | hparams "." NAME ("." NAME)* | hparams "[" STRING "]"
                | metric "(" STRING ("," STRING)* ")" "." STAT

Missing values (a run without that hparam or metric) make every comparison false; ``not`` flips the result.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

import re2

from ridgeline.search.errors import SearchError
from ridgeline.search.runfacts import STATS

Kind = Literal["num", "str", "bool", "time", "any"]

KEYWORDS = {"and", "or", "not", "in", "order", "by", "asc", "desc", "limit", "true", "false", "now", "today"}
FIELDS: dict[str, Kind] = {
    "run": "str",
    "started": "time",
    "ended": "time",
    "duration": "num",
    "status": "str",
    "has_nan": "bool",
    "has_inf": "bool",
}
COMPARE_OPS = ("<=", ">=", "==", "!=", "=~", "!~", "<", ">")
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}
_TOKEN = re.compile(
    r"""(?P<space>\s+)
      | (?P<number>(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?(?P<unit>[smhdw](?![\w]))?)
      | (?P<string>"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')
      | (?P<name>[A-Za-z_][A-Za-z0-9_]*)
      | (?P<op><=|>=|==|!=|=~|!~|[<>()\[\].,+\-*/])""",
    re.VERBOSE,
)


@dataclass(frozen=True, slots=True)
class Token:
    kind: Literal["number", "string", "name", "keyword", "op", "end"]
    text: str
    position: int
    value: Any = None


# --- syntax tree ----------------------------------------------------------------------------------------------
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


# --- tokenizer and parser ---------------------------------------------------------------------------------------
def tokenize(text: str) -> list[Token]:
    tokens: list[Token] = []
    position = 0
    while position < len(text):
        match = _TOKEN.match(text, position)
        if match is None:
            char = text[position]
            if char in "\"'":
                raise SearchError(f"unterminated string: close it with {char}", position)
            raise SearchError(f"unexpected character {char!r}", position)
        kind = match.lastgroup if match.lastgroup != "unit" else "number"
        word = match.group()
        if kind == "number":
            unit = match.group("unit")
            number = float(word[:-1] if unit else word)
            tokens.append(Token("number", word, position, number * _UNITS[unit] if unit else number))
        elif kind == "string":
            tokens.append(Token("string", word, position, _unquote(word[1:-1])))
        elif kind == "name":
            tokens.append(Token("keyword" if word.lower() in KEYWORDS else "name", word, position, word.lower()))
        elif kind == "op":
            tokens.append(Token("op", word, position, word))
        position = match.end()
    tokens.append(Token("end", "", len(text)))
    return tokens


def _unquote(body: str) -> str:
    return re.sub(r"\\(.)", lambda m: {"n": "\n", "t": "\t"}.get(m.group(1), m.group(1)), body)


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens = tokenize(text)
        self.index = 0

    @property
    def token(self) -> Token:
        return self.tokens[self.index]

    def take(self) -> Token:
        token = self.tokens[self.index]
        self.index += 1
        return token

    def at(self, *words: str) -> bool:
        token = self.token
        return token.kind in ("keyword", "op") and token.value in words

    def expect(self, word: str, what: str) -> Token:
        if not self.at(word):
            raise self.error(f"expected {what}")
        return self.take()

    def error(self, message: str, token: Token | None = None) -> SearchError:
        token = token or self.token
        found = "the end of the query" if token.kind == "end" else repr(token.text)
        return SearchError(f"{message}, found {found}", token.position)

    def query(self) -> Query:
        where = None
        if not self.at("order", "limit") and self.token.kind != "end":
            where = self.condition()
        order: list[tuple[Node, bool]] = []
        if self.at("order"):
            self.take()
            self.expect("by", "'by' after 'order'")
            while True:
                start = self.token
                key = self.sum()
                if _kind(key) == "bool":
                    raise self.error("order by needs a value (a number, time or string), not a condition", start)
                desc = self.at("desc")
                if self.at("asc", "desc"):
                    self.take()
                order.append((key, desc))
                if not self.at(","):
                    break
                self.take()
        limit = None
        if self.at("limit"):
            self.take()
            token = self.token
            if token.kind != "number" or not token.text.isdigit():
                raise self.error("expected a whole number after 'limit'")
            limit = int(self.take().value)
        if self.token.kind != "end":
            expected = "'and', 'or', 'order by' or 'limit'" if where is not None else "a condition"
            raise self.error(f"expected {expected}")
        if where is not None:
            _check_condition(where, self.tokens[0])
        return Query(where, tuple(order), limit, self.text)

    def condition(self) -> Node:
        return self.joined("or", self.conjunction)

    def conjunction(self) -> Node:
        return self.joined("and", self.negation)

    def joined(self, op: Literal["and", "or"], operand: Callable[[], Node]) -> Node:
        """``operand (op operand)*``; with more than one, each must be a condition."""
        starts = [self.token]
        items = [operand()]
        while self.at(op):
            self.take()
            starts.append(self.token)
            items.append(operand())
        if len(items) == 1:
            return items[0]
        for item, start in zip(items, starts, strict=True):
            _check_condition(item, start)
        return Bool(op, tuple(items))

    def negation(self) -> Node:
        if self.at("not"):
            token = self.take()
            operand = self.negation()
            _check_condition(operand, token)
            return Not(operand)
        return self.comparison()

    def comparison(self) -> Node:
        start = self.token
        left = self.sum()
        if self.at(*COMPARE_OPS):
            op_token = self.take()
            right_token = self.token
            right = self.sum()
            return _compare(op_token, left, right, right_token, start)
        if self.at("in") or (self.at("not") and self.tokens[self.index + 1].value == "in"):
            negated = self.take().value == "not"
            if negated:
                self.take()
            self.expect("[", "'[' starting the list of values")
            values = [self.literal()]
            while self.at(","):
                self.take()
                values.append(self.literal())
            self.expect("]", "',' or ']' closing the list")
            return In(left, tuple(values), negated)
        return left

    def literal(self) -> Lit:
        start = self.token
        node = self.unary()
        if not isinstance(node, Lit):
            raise self.error("expected a number, string, true or false in the list", start)
        return node

    def sum(self) -> Node:
        node = self.product()
        while self.at("+", "-"):
            op = self.take()
            node = _arith(op, node, self.product())
        return node

    def product(self) -> Node:
        node = self.unary()
        while self.at("*", "/"):
            op = self.take()
            node = _arith(op, node, self.unary())
        return node

    def unary(self) -> Node:
        if self.at("-"):
            token = self.take()
            operand = self.unary()
            if isinstance(operand, Lit) and isinstance(operand.value, float):
                return Lit(-operand.value, "-" + operand.text)
            if _kind(operand) not in ("num", "any"):
                raise SearchError("'-' needs a number", token.position)
            return Neg(operand)
        return self.primary()

    def primary(self) -> Node:
        token = self.token
        if token.kind == "number":
            self.take()
            return Lit(float(token.value), token.text)
        if token.kind == "string":
            self.take()
            return Lit(token.value, token.text)
        if token.kind == "keyword" and token.value in ("true", "false"):
            self.take()
            return Lit(token.value == "true", token.value)
        if token.kind == "keyword" and token.value in ("now", "today"):
            self.take()
            return Now(token.value)
        if self.at("("):
            self.take()
            node = self.condition()
            self.expect(")", "')' or an operator")
            return node
        if token.kind == "name":
            return self.field()
        raise self.error('expected a value: a field (run, hparams.NAME, metric("TAG").STAT, ...), a number or a string')

    def field(self) -> Node:
        token = self.take()
        name = token.text
        if name == "hparams":
            if self.at("["):
                self.take()
                if self.token.kind != "string":
                    raise self.error('expected a quoted hyperparameter name, as in hparams["a/b"]')
                key = self.take().value
                self.expect("]", "']'")
                return HParam(key)
            self.expect(".", 'a hyperparameter: hparams.NAME or hparams["NAME"]')
            parts = [self.name("a hyperparameter name after 'hparams.'")]
            while self.at(".") and self.tokens[self.index + 1].kind in ("name", "keyword"):
                self.take()
                parts.append(self.name("a name after '.'"))
            return HParam(".".join(parts))
        if name == "metric":
            self.expect("(", "'(' and a quoted tag: metric(\"val/loss\")")
            tags = []
            while True:
                if self.token.kind != "string":
                    raise self.error('expected a quoted tag name, as in metric("val/loss")')
                tags.append(self.take().value)
                if not self.at(","):
                    break
                self.take()
            self.expect(")", "',' or ')' closing metric(")
            self.expect(".", f"a statistic after metric(...): .{', .'.join(STATS)}")
            stat_token = self.token
            stat = self.name("a statistic")
            if stat not in STATS:
                raise SearchError(f"unknown statistic {stat!r}: use one of {', '.join(STATS)}", stat_token.position)
            return Metric(tuple(tags), stat)
        if name in FIELDS:
            return Field(name)
        known = ", ".join([*FIELDS, "hparams.NAME", 'metric("TAG").STAT'])
        hint = f" (a hyperparameter is hparams.{name})" if self.at(*COMPARE_OPS, "in") else ""
        raise SearchError(f"unknown field {name!r}{hint}: fields are {known}", token.position)

    def name(self, what: str) -> str:
        if self.token.kind not in ("name", "keyword"):
            raise self.error(f"expected {what}")
        return self.take().text


def _kind(node: Node) -> Kind:
    if isinstance(node, Lit):
        return "bool" if isinstance(node.value, bool) else "str" if isinstance(node.value, str) else "num"
    if isinstance(node, Now):
        return "time"
    if isinstance(node, Field):
        return FIELDS[node.name]
    if isinstance(node, HParam):
        return "any"
    if isinstance(node, Metric):
        return "bool" if node.stat in ("nan", "inf") else "num"
    if isinstance(node, Arith):
        return "time" if "time" in (_kind(node.left), _kind(node.right)) and node.op in "+-" else "num"
    if isinstance(node, Neg):
        return "num"
    return "bool"


def _arith(op: Token, left: Node, right: Node) -> Arith:
    for side in (left, right):
        if _kind(side) not in ("num", "time", "any"):
            raise SearchError(f"{op.text!r} needs numbers or times on both sides", op.position)
    return Arith(op.text, left, right)


def _compare(op: Token, left: Node, right: Node, right_token: Token, start: Token) -> Compare:
    kinds = (_kind(left), _kind(right))
    if op.text in ("=~", "!~"):
        if not (isinstance(right, Lit) and isinstance(right.value, str)):
            raise SearchError(f"{op.text} needs a quoted regular expression on its right", right_token.position)
        if kinds[0] not in ("str", "any"):
            raise SearchError(f"{op.text} matches strings (run, status, hparams.NAME)", start.position)
        return Compare(op.text, left, right, _compile_re2(right.value, right_token.position))
    if "time" in kinds:  # a date written as a string: "2026-11-22" or "2026-11-22 14:30" (local time)
        left, right = (_as_time(side, token) for side, token in ((left, start), (right, right_token)))
        kinds = (_kind(left), _kind(right))
    if "bool" in kinds and op.text not in ("==", "!="):
        raise SearchError(f"{op.text} compares numbers, times or strings, not conditions", op.position)
    if {"str", "num"} <= set(kinds) or {"str", "time"} <= set(kinds) or {"str", "bool"} <= set(kinds):
        words = {"str": "string", "num": "number", "time": "time", "bool": "condition", "any": "value"}
        raise SearchError(f"cannot compare a {words[kinds[0]]} with a {words[kinds[1]]} using {op.text}", op.position)
    return Compare(op.text, left, right)


def _as_time(node: Node, token: Token) -> Node:
    if not (isinstance(node, Lit) and isinstance(node.value, str)):
        return node
    try:
        when = dt.datetime.fromisoformat(node.value.strip())
    except ValueError:
        raise SearchError(
            f'expected a date like "2026-11-22" or "2026-11-22 14:30", not {node.text}', token.position
        ) from None
    return Lit(when.timestamp(), node.text)


def _compile_re2(pattern: str, position: int) -> Any:
    options = re2.Options()
    options.log_errors = False
    try:
        return re2.compile(pattern, options=options)
    except re2.error as error:
        detail = (
            error.args[0].decode(errors="replace") if error.args and isinstance(error.args[0], bytes) else str(error)
        )
        raise SearchError(f"invalid regular expression: {detail}", position) from None


def _check_condition(node: Node, token: Token) -> None:
    if _kind(node) not in ("bool", "any"):
        raise SearchError(
            'expected a condition (a comparison such as run =~ "resnet" or hparams.lr < 0.01, or has_nan)',
            token.position,
        )


def parse(text: str) -> Query:
    """Parse a query; raises SearchError(message, position) pointing at the offending character."""
    parser = _Parser(text)
    query = parser.query()
    if query.where is None and not query.order and query.limit is None:
        raise SearchError("empty query: write a condition such as hparams.lr < 0.01", 0)
    return query


# --- rendering --------------------------------------------------------------------------------------------------
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
