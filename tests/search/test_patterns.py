"""The pattern language's parser: where terms start and end, groups versus regex parentheses, quoting,
precedence, normalised text, and the literal a pattern's matches must contain."""

from __future__ import annotations

import pytest

from ridgeline.search.patterns import And, Not, Or, Term, normalise, parse, required_literal


@pytest.mark.parametrize(
    ("query", "tree"),
    [
        ("tag:^train_", Term("tag", "^train_", 4)),
        ("text:nan detected", Term("text", "nan detected", 5)),
        ("(lr=0.001|batch_size=64).*(dropout=0.2)", Term(None, "(lr=0.001|batch_size=64).*(dropout=0.2)", 0)),
        ("hparam:lr=0\\.00[1-5]", Term("hparam", "lr=0\\.00[1-5]", 7)),
        ("(?i)VAL/ACC", Term(None, "(?i)VAL/ACC", 0)),
        ("meta:host=a", Term("metadata", "host=a", 5)),
        ("hparams:x", Term("hparam", "x", 8)),
        ("http://x", Term(None, "http://x", 0)),  # not a field prefix
        ("tag:[)]x", Term("tag", "[)]x", 4)),  # a ) in a class closes nothing
        ("tag:\\(x", Term("tag", "\\(x", 4)),
        ('text:"a AND b"', Term("text", "a AND b", 6)),
        ('"say \\"hi\\""', Term(None, 'say "hi"', 1)),
        ("run:a  AND  tag:b", And((Term("run", "a", 4), Term("tag", "b", 16)))),
        ("run:a tag:b", And((Term("run", "a", 4), Term("tag", "b", 10)))),
        ("run:a OR tag:b AND text:c", Or((Term("run", "a", 4), And((Term("tag", "b", 13), Term("text", "c", 24)))))),
        ("NOT run:a AND tag:b", And((Not(Term("run", "a", 8)), Term("tag", "b", 18)))),
        ("NOT NOT run:a", Not(Not(Term("run", "a", 12)))),
        ("(run:a OR run:b) AND tag:c", And((Or((Term("run", "a", 5), Term("run", "b", 14))), Term("tag", "c", 25)))),
        ("(train|val)", Term(None, "train|val", 1)),  # a group of one pattern: the same search
        ("(a+)+$", Term(None, "(a+)+$", 0)),
        ("run:a (tag:b OR tag:c)", And((Term("run", "a", 4), Or((Term("tag", "b", 11), Term("tag", "c", 20)))))),
        ("lower and or not", Term(None, "lower and or not", 0)),  # lower-case words belong to the pattern
    ],
)
def test_parse(query: str, tree: object) -> None:
    assert parse(query) == tree


@pytest.mark.parametrize(
    ("query", "text"),
    [
        ("run:a tag:b", "run:a AND tag:b"),
        ("run:a OR (tag:b OR tag:c)", "run:a OR tag:b OR tag:c"),
        ("(run:a OR run:b) tag:c", "(run:a OR run:b) AND tag:c"),
        ("NOT (run:a OR run:b)", "NOT (run:a OR run:b)"),
        ('text:"a AND b"', 'text:"a AND b"'),
        ("text:nan detected", "text:nan detected"),
        ('text:"x (y)"', 'text:"x (y)"'),
        ('text:"run:x"', 'text:"run:x"'),
    ],
)
def test_normalise_reparses_to_the_same_tree(query: str, text: str) -> None:
    assert normalise(parse(query)) == text
    assert normalise(parse(text)) == text


@pytest.mark.parametrize(
    ("pattern", "literal"),
    [
        ("(lr=0.001|batch_size=64).*(dropout=0.2)", b"dropout=0"),
        ("202411[0-9]{2}[0-9]{4}", b"202411"),
        ("^train_", b"train_"),
        ("lr=0\\.00[1-5]", b"lr=0.00"),
        ("nan detected", b"nan detected"),
        ("(?i)VAL/ACC", None),  # case-insensitive: no literal to be sure of
        ("(a+)+$", None),
        ("a|bcd", None),
        ("x(abc)?yz", None),  # the group may be absent; "yz" is too short
        ("colou?r", b"colo"),
        ("(train|val)_loss", b"_loss"),
        ("\\d+ nan\\.x", b" nan.x"),
        ("\\Qa.b\\E", None),
        ("über", "über".encode()),
    ],
)
def test_required_literal(pattern: str, literal: bytes | None) -> None:
    assert required_literal(pattern) == literal
