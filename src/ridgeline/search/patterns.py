"""The pattern language: RE2 patterns scoped to a field and combined with AND / OR / NOT and parentheses.

Grammar (keywords are upper case, so a pattern can hold the words "and", "or", "not")::

    expr    := and ("OR" and)*
    and     := unary (["AND"] unary)*          two terms side by side are ANDed
    unary   := "NOT" unary | primary
    primary := "(" expr ")" | term
    term    := [field ":"] ('"' quoted '"' | bare)

A bare pattern is read like grep reads its pattern: spaces belong to it (``text:nan detected`` is the pattern
"nan detected"). It ends at the end of the query, at a ``)`` that closes a group, or at a space followed by a
keyword, a field prefix (``tag:``...), ``(`` or ``"``. Regex parentheses and character classes inside a pattern
are skipped as a whole, so ``(lr=0.001|batch_size=64).*(dropout=0.2)`` is one pattern. A ``(`` where a term may
start opens a group, unless what follows its matching ``)`` continues the pattern (``(a|b).*c``) or it is a
flag group (``(?i)``) — a group holding one pattern means the same as that pattern anyway.

Each term is compiled with google-re2 for one joined buffer per field (entries separated by newlines):
``(?m)`` makes ``^``/``$`` match at each entry's start and end, and ``never_nl`` keeps a match (``[^a]``,
``\\s``) from running across entries.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import re2

from ridgeline.search.errors import SearchError

# The fields an entry belongs to, in the order hits are listed; the prefix a query scopes a term with.
FIELDS = ("run", "tag", "hparam", "metadata", "date", "text", "annotation", "note", "log")
ALIASES = {
    "hparams": "hparam",
    "meta": "metadata",
    "annotations": "annotation",
    "tags": "tag",
    "runs": "run",
    "notes": "note",
    "logs": "log",
}
_PREFIX = re.compile(r"([a-z]+):")
_KEYWORDS = ("AND", "OR", "NOT")
_MULTILINE = "(?m)"


@dataclass(frozen=True, slots=True)
class Term:
    """One pattern, over one field (None = every field); ``position``: where its pattern starts in the query."""

    field: str | None
    pattern: str
    position: int


@dataclass(frozen=True, slots=True)
class Not:
    operand: Node


@dataclass(frozen=True, slots=True)
class And:
    operands: tuple[Node, ...]


@dataclass(frozen=True, slots=True)
class Or:
    operands: tuple[Node, ...]


Node = Term | Not | And | Or


def terms(node: Node) -> list[Term]:
    """Every term of the expression, left to right."""
    if isinstance(node, Term):
        return [node]
    if isinstance(node, Not):
        return terms(node.operand)
    return [term for operand in node.operands for term in terms(operand)]


def normalise(node: Node) -> str:
    """The expression as text with explicit operators and quotes where needed (what ``query`` reports)."""
    if isinstance(node, Term):
        pattern = node.pattern
        if _needs_quotes(pattern):
            pattern = '"' + pattern.replace('"', '\\"') + '"'
        return f"{node.field}:{pattern}" if node.field else pattern
    if isinstance(node, Not):
        inner = normalise(node.operand)
        return f"NOT {inner}" if isinstance(node.operand, Term | Not) else f"NOT ({inner})"
    joiner = " AND " if isinstance(node, And) else " OR "
    parts = [
        f"({normalise(op)})" if isinstance(op, And | Or) and type(op) is not type(node) else normalise(op)
        for op in node.operands
    ]
    return joiner.join(parts)


def _needs_quotes(pattern: str) -> bool:
    if not pattern or pattern != pattern.strip() or '"' in pattern:
        return True
    if any(f" {keyword} " in f" {pattern} " for keyword in _KEYWORDS):
        return True
    return " (" in pattern or bool(re.search(r"(^|\s)[a-z]+:", pattern))


def parse(query: str) -> Node:
    """The expression tree of ``query``; a SearchError pointing into ``query`` when it does not parse."""
    parser = _Parser(query)
    node = parser.expression()
    parser.skip_spaces()
    if parser.at < len(query):
        raise SearchError("unexpected ')': no group to close", parser.at)
    return node


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.at = 0

    def skip_spaces(self) -> None:
        while self.at < len(self.text) and self.text[self.at].isspace():
            self.at += 1

    def keyword(self, at: int | None = None) -> str | None:
        """The keyword starting at ``at`` (a whole word: followed by a space, a parenthesis or the end)."""
        at = self.at if at is None else at
        for keyword in _KEYWORDS:
            end = at + len(keyword)
            if self.text.startswith(keyword, at) and (
                end == len(self.text) or self.text[end].isspace() or self.text[end] in "()"
            ):
                return keyword
        return None

    def prefix(self, at: int) -> str | None:
        """The field named by a ``field:`` prefix at ``at``, or None."""
        found = _PREFIX.match(self.text, at)
        if found is None:
            return None
        name = ALIASES.get(found.group(1), found.group(1))
        return name if name in FIELDS else None

    def expression(self) -> Node:
        operands = [self.conjunction()]
        while True:
            self.skip_spaces()
            if self.keyword() != "OR":
                break
            self.at += 2
            operands.append(self.conjunction())
        return operands[0] if len(operands) == 1 else Or(tuple(operands))

    def conjunction(self) -> Node:
        operands = [self.unary()]
        while True:
            self.skip_spaces()
            if self.at >= len(self.text) or self.text[self.at] == ")" or self.keyword() == "OR":
                break
            if self.keyword() == "AND":
                self.at += 3
            operands.append(self.unary())
        return operands[0] if len(operands) == 1 else And(tuple(operands))

    def unary(self) -> Node:
        self.skip_spaces()
        if self.keyword() == "NOT":
            self.at += 3
            return Not(self.unary())
        return self.primary()

    def primary(self) -> Node:
        self.skip_spaces()
        text, start = self.text, self.at
        if start >= len(text):
            raise SearchError("a pattern is missing here (after an operator, or the query is empty)", start)
        keyword = self.keyword()
        if keyword is not None:
            raise SearchError(f"{keyword} needs a pattern before it", start)
        if text[start] == ")":
            raise SearchError("a pattern is missing before ')'", start)
        if text[start] == "(" and not text.startswith("(?", start):
            close = _skip_group(text, start)
            if close is None:
                raise SearchError("'(' is never closed", start)
            after = close + 1
            if after >= len(text) or text[after].isspace() or text[after] == ")":
                self.at = start + 1
                inner = self.expression()
                self.skip_spaces()
                if self.at >= len(text) or text[self.at] != ")":
                    raise SearchError("')' expected here to close the group opened earlier", self.at)
                self.at += 1
                return inner
        return self.term()

    def term(self) -> Term:
        text = self.text
        field = self.prefix(self.at)
        if field is not None:
            self.at = text.index(":", self.at) + 1
        if self.at < len(text) and text[self.at] == '"':
            return self.quoted(field)
        start = self.at
        end = self.bare_end(start)
        pattern = text[start:end].rstrip()
        if not pattern:
            where = f"after {field}:" if field else "here"
            raise SearchError(f"a pattern is missing {where}", start)
        self.at = end
        return Term(field, pattern, start)

    def quoted(self, field: str | None) -> Term:
        text, start = self.text, self.at + 1
        chars: list[str] = []
        at = start
        while at < len(text):
            char = text[at]
            if char == "\\" and at + 1 < len(text) and text[at + 1] == '"':
                chars.append('"')
                at += 2
                continue
            if char == "\\" and at + 1 < len(text):
                chars.append(text[at : at + 2])
                at += 2
                continue
            if char == '"':
                self.at = at + 1
                if not chars:
                    raise SearchError("an empty quoted pattern", start - 1)
                return Term(field, "".join(chars), start)
            chars.append(char)
            at += 1
        raise SearchError('the quote opened here is never closed (write \\" for a quote inside)', start - 1)

    def bare_end(self, at: int) -> int:
        """Where the bare pattern starting at ``at`` ends (see the module's docstring)."""
        text = self.text
        depth = 0
        while at < len(text):
            char = text[at]
            if char == "\\":
                at += 2
                continue
            if char == "[":
                at = _skip_class(text, at)
                continue
            if char == "(":
                depth += 1
            elif char == ")":
                if depth == 0:
                    return at
                depth -= 1
            elif char.isspace() and depth == 0:
                following = at
                while following < len(text) and text[following].isspace():
                    following += 1
                if (
                    following == len(text)
                    or text[following] in '()"'
                    or self.keyword(following) is not None
                    or self.prefix(following) is not None
                ):
                    return at
            at += 1
        return min(at, len(text))


def _skip_class(text: str, at: int) -> int:
    """The index after the character class opening at ``at`` (``[]a]`` and ``[^]a]`` hold a literal ']')."""
    at += 1
    if at < len(text) and text[at] == "^":
        at += 1
    if at < len(text) and text[at] == "]":
        at += 1
    while at < len(text) and text[at] != "]":
        if text[at] == "\\":
            at += 1
        elif text.startswith("[:", at):  # [[:alpha:]]
            close = text.find(":]", at + 2)
            at = close + 1 if close >= 0 else at
        at += 1
    return at + 1


def _skip_group(text: str, at: int) -> int | None:
    """The index of the ``)`` closing the parenthesis at ``at`` (escapes and classes skipped), or None."""
    depth = 0
    while at < len(text):
        char = text[at]
        if char == "\\":
            at += 2
            continue
        if char == "[":
            at = _skip_class(text, at)
            continue
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth == 0:
                return at
        at += 1
    return None


def compile_literal(literal: bytes) -> re2._Regexp:
    """An RE2 program finding ``literal`` (what ``FieldIndex.scan`` jumps to candidate texts with)."""
    return re2.compile(re2.escape(literal), _options(ignore_case=False))


def _options(*, ignore_case: bool) -> re2.Options:
    options = re2.Options()
    options.never_nl = True
    options.log_errors = False
    options.case_sensitive = not ignore_case
    options.max_mem = 64 << 20  # room for the DFA on long buffers before RE2 falls back to its slower NFA
    return options


def compile_pattern(term: Term, *, ignore_case: bool) -> re2._Regexp:
    """The term's RE2 program over newline-joined UTF-8 entries; a SearchError at the fault when RE2 rejects it."""
    options = _options(ignore_case=ignore_case)
    try:
        return re2.compile((_MULTILINE + term.pattern).encode("utf-8"), options)
    except re2.error as error:
        raw = error.args[0] if error.args else b""
        message = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else str(raw)
        message = message.replace(_MULTILINE, "", 1)
        offset = _error_offset(term.pattern, message)
        position = term.position + offset if offset is not None else term.position
        raise SearchError(f"invalid pattern {term.pattern!r}: {message or 'RE2 rejects it'}", position) from None


def _error_offset(pattern: str, message: str) -> int | None:
    """Where in ``pattern`` RE2's message points (RE2 names the offending fragment, not its offset)."""
    what, _, fragment = message.partition(": ")
    if what.startswith("missing )"):
        opened: list[int] = []
        at = 0
        while at < len(pattern):
            char = pattern[at]
            if char == "\\":
                at += 2
                continue
            if char == "[":
                at = _skip_class(pattern, at)
                continue
            if char == "(":
                opened.append(at)
            elif char == ")" and opened:
                opened.pop()
            at += 1
        return opened[-1] if opened else len(pattern)
    if what.startswith("unexpected )"):
        depth = 0
        for at, char in enumerate(pattern):
            if char == "(" and (at == 0 or pattern[at - 1] != "\\"):
                depth += 1
            elif char == ")" and (at == 0 or pattern[at - 1] != "\\"):
                if depth == 0:
                    return at
                depth -= 1
        return None
    found = pattern.find(fragment) if fragment else -1
    return found if found >= 0 else None


def required_literal(pattern: str) -> bytes | None:
    """The longest string (3+ bytes) every match of ``pattern`` contains, or None when there is none to be sure of.

    Conservative: literal characters of the top-level sequence and of groups that must match once; a top-level
    ``|``, a case-insensitive flag, ``\\Q`` or anything unusual gives None. Used to find candidate texts with
    ``bytes.find`` before running RE2 on them (see ``FieldIndex.scan``)."""
    if "(?" in pattern and re.search(r"\(\?[a-zA-Z-]*i", pattern):
        return None
    if "\\Q" in pattern:
        return None
    runs = _literal_runs(pattern)
    if runs is None:
        return None
    best = max(runs, key=len, default="")
    encoded = best.encode("utf-8")
    return encoded if len(encoded) >= 3 else None


_QUANTIFIERS = "*+?{"
_SPECIAL = ".^$|()[]\\*+?{}"


def _literal_runs(pattern: str) -> list[str] | None:
    """The literal runs of a sequence that must all appear in a match (None: the sequence has a top-level |)."""
    runs: list[str] = []
    current: list[str] = []
    at = 0

    def flush() -> None:
        if current:
            runs.append("".join(current))
            current.clear()

    while at < len(pattern):
        char = pattern[at]
        if char == "|":
            return None
        if char == "\\":
            escaped = pattern[at + 1 : at + 2]
            item: str | None = escaped if escaped and not escaped.isalnum() else None
            end = at + 2
        elif char == "[":
            item, end = None, _skip_class(pattern, at)
        elif char == "(":
            close = _skip_group(pattern, at)
            if close is None:
                return None
            end = close + 1
            optional = end < len(pattern) and (pattern[end] in "*?" or pattern.startswith("{0", end))
            inner = pattern[at + 1 : close]
            if inner.startswith("?:"):
                inner = inner[2:]
            elif inner.startswith("?P<") or inner.startswith("?<"):
                inner = inner[inner.find(">") + 1 :]
            elif inner.startswith("?"):
                inner = ""  # a flag group such as (?m)
            flush()
            if not optional:
                nested = _literal_runs(inner)
                runs.extend(nested or [])
            item = None
            at = end
            if at < len(pattern) and pattern[at] in _QUANTIFIERS:
                at = _skip_quantifier(pattern, at)
            continue
        elif char in _SPECIAL:
            item, end = None, at + 1
        else:
            item, end = char, at + 1
        if end < len(pattern) and pattern[end] in _QUANTIFIERS:
            repeated = pattern[end]
            end = _skip_quantifier(pattern, end)
            if item is not None and repeated == "+":
                current.append(item)  # required once; what follows may not be adjacent
            item = None
            flush()
        if item is None:
            flush()
        else:
            current.append(item)
        at = end
    flush()
    return runs


def _skip_quantifier(pattern: str, at: int) -> int:
    if pattern[at] == "{":
        close = pattern.find("}", at)
        at = close + 1 if close >= 0 else at + 1
    else:
        at += 1
    if at < len(pattern) and pattern[at] in "?+":  # lazy or possessive form
        at += 1
    return at


def exact_literal(pattern: str) -> tuple[bytes, bool] | None:
    """(text, anchored) when ``pattern`` is a plain string, optionally after ``^`` (``resnet``, ``^train_``,
    ``nan detected``, ``lr=0\\.001``): such a pattern matches exactly the entries holding that string (at their
    start when anchored), which ``bytes.find`` locates without RE2. None for anything else."""
    anchored = pattern.startswith("^")
    body = pattern[1:] if anchored else pattern
    chars: list[str] = []
    at = 0
    while at < len(body):
        char = body[at]
        if char == "\\":
            escaped = body[at + 1 : at + 2]
            if not escaped or escaped.isalnum() or escaped == "\n":
                return None
            chars.append(escaped)
            at += 2
            continue
        if char in _SPECIAL or char == "\n":
            return None
        chars.append(char)
        at += 1
    text = "".join(chars).encode("utf-8")
    return (text, anchored) if text else None
