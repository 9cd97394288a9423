"""trec_eval's ``-m`` spelling: printed names, parameters and the measures they stand for.

Expected names follow trec_eval 10's rules as its golden files show them (``out.test.a`` for
``all_trec``, ``out.test.meas_params`` for parameters: sorted cutoffs, ``%3.2f`` fractions,
``atol`` truncation of ``23.4``, typed parameters kept in value-list and pair names).
"""

from __future__ import annotations

import math

import pytest
from pooljudge.metrics.registry import make
from pooljudge.metrics.trec_names import Entry, StringMeasure, expand, expand_all

from pooljudge.errors import InputError

DEPTHS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
TENTHS = tuple(i / 10 for i in range(11))
# trec_eval 10's "official" output (its out.test), in order.
OFFICIAL = ["runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec",
            "bpref", "recip_rank", *(f"iprec_at_recall_{x:.2f}" for x in TENTHS),
            *(f"P_{k}" for k in DEPTHS)]


def names(entries: list[Entry]) -> list[str]:
    return [entry.name for entry in entries]


def measures(entries: list[Entry]) -> list:
    return [entry.measure for entry in entries]


@pytest.mark.parametrize(("text", "expected"), [
    ("P.5,7,3", [("P_3", lambda: make("P", 3)), ("P_5", lambda: make("P", 5)),
                 ("P_7", lambda: make("P", 7))]),
    ("recall.20,2000", [("recall_20", lambda: make("R", 20)),
                        ("recall_2000", lambda: make("R", 2000))]),
    ("iprec_at_recall..10,.20,.25,.75,.50",
     [(f"iprec_at_recall_{x:.2f}", lambda x=x: make("IPrec", x))
      for x in (0.1, 0.2, 0.25, 0.5, 0.75)]),
    ("ndcg_cut.10,20,23.4", [("ndcg_cut_10", lambda: make("nDCG", 10)),
                             ("ndcg_cut_20", lambda: make("nDCG", 20)),
                             ("ndcg_cut_23", lambda: make("nDCG", 23))]),
    ("Rprec_mult.5.0,0.2,0.35", [("Rprec_mult_0.20", lambda: make("RprecMult", mult=0.2)),
                                 ("Rprec_mult_0.35", lambda: make("RprecMult", mult=0.35)),
                                 ("Rprec_mult_5.00", lambda: make("RprecMult", mult=5.0))]),
    ("utility.2,-1,0,0", [("utility_2,-1,0,0",
                           lambda: make("Utility", a=2.0, b=-1.0, c=0.0, d=0.0, docs=0))]),
    ("11pt_avg..25,.5,.75", [("11pt_avg_.25,.5,.75",
                              lambda: make("IPrec11", levels=(0.25, 0.5, 0.75)))]),
    ("ndcg.1=3,2=9,4=4.5", [("ndcg_1=3,2=9,4=4.5",
                             lambda: make("nDCG", gains={1: 3.0, 2: 9.0, 4: 4.5}))]),
    ("success.2,5,20", [(f"success_{k}", lambda k=k: make("Success", k)) for k in (2, 5, 20)]),
    ("map_cut.10", [("map_cut_10", lambda: make("AP", 10))]),
    ("relative_P.10", [("relative_P_10", lambda: make("RelP", 10))]),
    ("unj.3", [("unj_3", lambda: make("Unjudged", 3))]),
    ("set_F.0.25", [("set_F_0.25", lambda: make("SetF", beta=0.5))]),
    ("rbp.p=0.8", [("rbp_p=0.8", lambda: make("RBPGraded", p=0.8))]),
    ("rbp_resid.p=0.5", [("rbp_resid_p=0.5", lambda: make("RBPResid", p=0.5))]),
    ("G.1=2", [("G_1=2", lambda: make("G", gains={1: 2.0}))]),
    ("relstring.20", [("relstring_20", lambda: StringMeasure("relstring", 20))]),
    ("relstring", [("relstring", lambda: StringMeasure("relstring", 10))]),
    ("runid", [("runid", lambda: StringMeasure("runid"))]),
    ("map", [("map", lambda: make("AP"))]),
    ("gm_map", [("gm_map", lambda: make("GMAP"))]),
    ("gm_bpref", [("gm_bpref", lambda: make("GMBpref"))]),
    ("set_map", [("set_map", lambda: make("SetAP"))]),
    ("set_relative_P", [("set_relative_P", lambda: make("SetRelP"))]),
    ("num_nonrel_judged_ret", [("num_nonrel_judged_ret", lambda: make("NumNonRelJudgedRet"))]),
])
def test_parameters_give_trec_eval_names_and_pooljudge_measures(text, expected):
    entries = expand(text)
    assert names(entries) == [name for name, _ in expected]
    assert measures(entries) == [build() for _, build in expected]


@pytest.mark.parametrize(("text", "expected"), [
    ("P", [f"P_{k}" for k in DEPTHS]),
    ("recall", [f"recall_{k}" for k in DEPTHS]),
    ("success", ["success_1", "success_5", "success_10"]),
    ("unj", ["unj_5", "unj_10", "unj_20"]),
    ("Rprec_mult", [f"Rprec_mult_{x / 10:.2f}" for x in range(2, 21, 2)]),
    ("utility", ["utility"]),
    ("11pt_avg", ["11pt_avg"]),
    ("set_F", ["set_F"]),
    ("ndcg", ["ndcg"]),
])
def test_defaults_follow_trec_eval(text, expected):
    assert names(expand(text)) == expected


def test_defaults_are_trec_eval_s_parameter_values():
    assert expand("utility")[0].measure == make("Utility", a=1.0, b=-1.0, c=0.0, d=0.0, docs=0)
    assert expand("11pt_avg")[0].measure == make("IPrec11")
    assert expand("set_F")[0].measure == make("SetF")
    assert expand("rbp")[0].measure == make("RBPGraded", p=0.9)
    assert expand("ndcg")[0].measure == make("nDCG")


def test_official_is_trec_eval_s_default_set():
    assert names(expand("official")) == OFFICIAL


def test_all_trec_prints_what_trec_eval_10_prints(shared_data):
    """The names and order of trec_eval 10's ``-m all_trec`` summary (its out.test.a)."""
    golden = shared_data / "trec_eval10" / "suite" / "out.test.a"
    expected = [line.split("\t")[0].rstrip() for line in golden.read_text().splitlines()]
    summary = [entry.name for entry in expand("all_trec") if entry.summary]
    assert summary == expected


def test_all_trec_flags_follow_trec_eval_s_printing():
    entries = {entry.name: entry for entry in expand("all_trec")}
    assert {n for n, e in entries.items() if not e.per_topic} == {"runid", "num_q", "gm_map",
                                                                  "gm_bpref"}
    assert {n for n, e in entries.items() if not e.summary} == {"relstring"}
    assert {n for n, e in entries.items() if e.integer} == {
        "num_q", "num_ret", "num_rel", "num_rel_ret", "num_nonrel_judged_ret"}


def test_set_nickname():
    assert names(expand("set")) == ["runid", "num_q", "num_ret", "num_rel", "num_rel_ret",
                                    "utility", "set_P", "set_relative_P", "set_recall",
                                    "set_map", "set_F"]


def test_families_print_in_trec_eval_order_whatever_the_argument_order():
    assert names(expand_all(["P.5", "map", "num_q"])) == ["num_q", "map", "P_5"]


def test_the_first_argument_with_parameters_gives_them():
    assert names(expand_all(["P.5", "P.10"])) == ["P_5"]
    assert names(expand_all(["official", "P.5"])) == [*OFFICIAL[:-len(DEPTHS)], "P_5"]
    assert names(expand_all(["P", "P.7"])) == ["P_7"]


@pytest.mark.parametrize(("text", "expected"), [
    ("P.5x,10", ["P_5", "P_10"]),  # atol stops at the first non-digit
    ("ndcg_cut.23.9", ["ndcg_cut_23"]),  # atol truncates
    ("iprec_at_recall.1e-1", ["iprec_at_recall_0.10"]),  # atof reads exponents
    ("Rprec_mult.0.125", ["Rprec_mult_0.12"]),  # %3.2f rounds half to even, as printf does
])
def test_numbers_are_read_and_printed_as_c_does(text, expected):
    assert names(expand(text)) == expected


def test_relstring_length_is_truncated_and_never_negative():
    assert expand("relstring.20.7")[0].measure == StringMeasure("relstring", 20)
    assert expand("relstring.-3")[0].measure == StringMeasure("relstring", 0)


def test_rel_is_passed_to_measures_that_have_it():
    assert expand("P.5", rel=2)[0].measure == make("P", 5, rel=2)
    assert expand("map", rel=3)[0].measure == make("AP", rel=3)
    assert expand("ndcg", rel=2)[0].measure == make("nDCG")  # gains, not a relevance level
    assert expand("map")[0].measure == make("AP")


def test_num_docs_is_the_collection_size_of_utility():
    entry = expand("utility.1,-1,0,1", num_docs=500)[0]
    assert entry.measure == make("Utility", a=1.0, b=-1.0, c=0.0, d=1.0, docs=500)


def test_set_f_weight_is_beta_squared():
    """trec_eval's set_F.x = (x + 1) P R / (x P + R): pooljudge's SetF with beta^2 = x."""
    (entry,) = expand("set_F.2")
    assert entry.measure == make("SetF", beta=math.sqrt(2.0))


def test_gain_pairs_with_non_integer_levels_are_ignored_like_trec_eval():
    assert expand("ndcg.x=3,2=9")[0].measure == make("nDCG", gains={2: 9.0})
    assert expand("rbp.p=0.5,2=3")[0].measure == make("RBPGraded", p=0.5, gains={2: 3.0})


def test_nan_levels_mark_the_interpolated_precision_families():
    assert [e.nan_levels for e in expand("iprec_at_recall..1,.5")] == [(0.1,), (0.5,)]
    assert expand("11pt_avg..2,.8")[0].nan_levels == (0.2, 0.8)
    assert expand("11pt_avg")[0].nan_levels == TENTHS
    assert all(e.nan_levels == () for e in expand("P.5"))


@pytest.mark.parametrize(("text", "fragment"), [
    ("no_such", "unknown trec_eval measure 'no_such'"),
    ("P_10", "did you mean P.10?"),
    ("ndcg_cut_10", "did you mean ndcg_cut.10?"),
    ("precision", "unknown trec_eval measure"),
    ("P.", "no parameters after"),
    ("P.0", "positive"),
    ("P.-5,10", "positive"),
    ("P.abc", "positive"),
    ("P.5,5.9", "twice"),
    ("iprec_at_recall..5,.50", "twice"),
    ("map.5", "map takes no parameters"),
    ("official.5", "takes no parameters"),
    ("utility.1,2,3", "4 coefficients"),
    ("set_F.-1", ">= 0"),
    ("11pt_avg..5,.2", "ascending"),
    ("ndcg.1:3", "name=value"),
    ("all_prefs", "not supported"),
    ("qrels_jg", "not supported"),
    ("prefs_simp", "not supported"),
    ("dcg", "not supported"),
    ("", "unknown trec_eval measure"),
])
def test_bad_arguments_raise_input_errors(text, fragment):
    with pytest.raises(InputError) as raised:
        expand(text)
    assert fragment in str(raised.value)


@pytest.mark.parametrize(("spelling", "expected"), [
    ("P.5,7,3", ["P@3", "P@5", "P@7"]),
    ("ndcg_cut.10,20", ["nDCG@10", "nDCG@20"]),
    ("iprec_at_recall..10,.25", ["IPrec@0.1", "IPrec@0.25"]),
    ("Rprec_mult.0.2", ["RprecMult(mult=0.2)"]),
    ("ndcg.1=3,2=9", ["nDCG(gains={1:3,2:9})"]),
])
def test_eval_accepts_trec_eval_parameter_spellings(spelling, expected):
    from pooljudge.metrics.eval_inputs import parse_all

    assert [str(m) for m in parse_all([spelling])] == expected
    assert parse_all([spelling]) == parse_all(expected)


@pytest.mark.parametrize(("spelling", "message"), [
    ("P.x", "unknown measure 'P.x'"),
    ("relstring.20", "printed as text"),
    ("nosuch.5", "unknown measure 'nosuch.5'"),
])
def test_eval_refuses_a_bad_trec_eval_spelling_in_one_message(spelling, message):
    from pooljudge.metrics.eval_inputs import parse_all

    with pytest.raises(InputError, match=message):
        parse_all([spelling])
