"""The run query language's tokens: its keywords and operators, and :func:`tokenize`, which turns a query's text
into :class:`Token` s, each with the position it starts at (for error messages that point at it). The grammar
they are read by is in :mod:`ridgeline.search.query_parser`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Literal

from ridgeline.search.errors import SearchError

__all__ = ["COMPARE_OPS", "KEYWORDS", "Token", "tokenize"]

KEYWORDS = {"and", "or", "not", "in", "order", "by", "asc", "desc", "limit", "true", "false", "now", "today"}
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
