"""The run query language's parser: text -> :class:`ridgeline.search.query_tree.Query`, the kinds of its values
checked as it reads (tokens: :mod:`ridgeline.search.query_tokens`).

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
from collections.abc import Callable
from typing import Any, Literal

import re2

from ridgeline.search.errors import SearchError
from ridgeline.search.query_tokens import COMPARE_OPS, Token, tokenize
from ridgeline.search.query_tree import (
    FIELDS,
    Arith,
    Bool,
    Compare,
    Field,
    HParam,
    In,
    Kind,
    Lit,
    Metric,
    Neg,
    Node,
    Not,
    Now,
    Query,
)
from ridgeline.search.runfacts import STATS

__all__ = ["parse"]


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
