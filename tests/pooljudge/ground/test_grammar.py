"""The one ``name(param=v)@k`` grammar: its shape, its faults, the text it writes back, and that
measures and strategies both read their names through it."""

from __future__ import annotations

import ast
import inspect

import pytest
from pooljudge.metrics import parse
from pooljudge.pooling.strategies import parse_strategy

import pooljudge.ground.grammar
from pooljudge.errors import InputError
from pooljudge.ground.grammar import NameSyntaxError, ParsedName, format_name, parse_name

SHAPES = [
    ("P", ParsedName("P")),
    ("P@10", ParsedName("P", (), "10")),
    ("IPrec@0.3", ParsedName("IPrec", (), "0.3")),
    ("P(rel=2)@10", ParsedName("P", (("rel", "2"),), "10")),
    ("nDCG(gains={1:3,2:9})@10", ParsedName("nDCG", (("gains", "{1:3,2:9}"),), "10")),
    ("Utility(b=-1,a=2)", ParsedName("Utility", (("b", "-1"), ("a", "2")))),  # written order
    (" rbp-max( p = 0.9 ) ", ParsedName("rbp-max", (("p", "0.9"),))),
    ("take @ 3", ParsedName("take", (), "3")),
    ("rrf()", ParsedName("rrf")),
    ("rrf(k=1,)", ParsedName("rrf", (("k", "1"),))),  # blank items are skipped
    ("set_F(beta=0.5)", ParsedName("set_F", (("beta", "0.5"),))),
]


@pytest.mark.parametrize(("text", "parsed"), SHAPES, ids=[text for text, _ in SHAPES])
def test_texts_split_into_name_raw_parameters_and_cutoff(text, parsed):
    assert parse_name(text) == parsed


@pytest.mark.parametrize(("text", "parsed"), SHAPES, ids=[text for text, _ in SHAPES])
def test_the_written_form_parses_back_to_the_same_shape(text, parsed):
    written = format_name(parsed.name, parsed.params, parsed.cutoff)
    assert parse_name(written) == parsed
    assert " " not in written


def test_parts_left_out_are_not_written():
    assert format_name("P") == "P"
    assert format_name("P", cutoff="10") == "P@10"
    assert format_name("P", [("rel", "2")]) == "P(rel=2)"
    assert format_name("nDCG", [("gains", "{1:3}")], "5") == "nDCG(gains={1:3})@5"


FAULTS = [
    ("rrf(", "cannot parse name 'rrf('", None),
    ("", "cannot parse name ''", None),
    ("1abc", "cannot parse name '1abc'", None),
    ("P@", "cannot parse name 'P@'", None),
    ("f(a)(b)", "cannot parse name", None),
    ("f(a)", "name f(a): parameters are written name=value, got 'a'", "f"),
    ("f(=1)", "parameters are written name=value, got '=1'", "f"),
    ("f(a=)", "parameters are written name=value, got 'a='", "f"),
    ("f(a=1,a=2)", "name f(a=1,a=2): parameter a is given twice", "f"),
    ("f(a={{1}})", "braces are not balanced or nested", "f"),
    ("f(a={1)", "braces are not balanced or nested", "f"),
    ("f(a=1})", "braces are not balanced or nested", "f"),
]


@pytest.mark.parametrize(("text", "message", "name"), FAULTS, ids=[t for t, _, _ in FAULTS])
def test_faults_are_name_syntax_errors_naming_the_fault(text, message, name):
    with pytest.raises(NameSyntaxError) as raised:
        parse_name(text)
    assert message in str(raised.value)
    assert raised.value.name == name
    assert isinstance(raised.value, InputError)


def test_the_text_and_its_source_are_named():
    with pytest.raises(NameSyntaxError) as raised:
        parse_name("rrf(k)", what="strategy", source="--strategy")
    assert str(raised.value) == ("--strategy: strategy rrf(k): parameters are written "
                                 "name=value, got 'k'")


def test_a_reader_may_allow_other_separators_than_equals():
    assert parse_name("strata(10:1.0, 30 : 0.5)", separators="=:") == ParsedName(
        "strata", (("10", "1.0"), ("30", "0.5")))
    assert parse_name("f(gains={1:3})", separators="=:").params == (("gains", "{1:3}"),)
    with pytest.raises(NameSyntaxError, match="written name=value or name:value, got '10'"):
        parse_name("strata(10)", separators="=:")
    with pytest.raises(NameSyntaxError, match=r"written name=value, got '10:1\.0'"):
        parse_name("strata(10:1.0)")


@pytest.mark.parametrize(("reader", "text"), [
    (parse, "nDCG(gains={{1:2}})"), (parse, "P(rel)@10"), (parse, "P(rel=1,rel=2)"),
    (parse_strategy, "rrf(k)"), (parse_strategy, "rrf(k=1,k=2)"), (parse_strategy, "rrf(k={1)"),
    (parse_strategy, "rrf("),
])
def test_measures_and_strategies_raise_the_same_grammar_error(reader, text):
    with pytest.raises(NameSyntaxError):
        reader(text)


def test_the_grammar_imports_only_the_standard_library_and_the_error_types():
    tree = ast.parse(inspect.getsource(pooljudge.ground.grammar))
    imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    imported |= {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import)
                 for alias in node.names}
    assert imported == {"__future__", "re", "collections.abc", "dataclasses", "os",
                        "pooljudge.errors"}
