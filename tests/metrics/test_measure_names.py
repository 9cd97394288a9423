"""The measure name grammar: braced map and sequence parameters, canonical names that parse back
to the same measure, every name trec_eval 10 prints for -m all_trec, and bad values rejected."""

from __future__ import annotations

import pytest
from pooljudge.metrics import make, names, parse
from pooljudge.metrics.registry import MapOf, Measure, SequenceOf

from pooljudge.errors import InputError

CANONICAL = [
    "nDCG(gains={0:0,1:1,2:3})@10", "nDCG(gains={1:3,2:9,4:4.5})", "nDCG(gains={0:-1.25})",
    "G", "G(gains={1:3.5,2:9})", "BinG", "BinG(rel=2)", "RnDCG", "RnDCG(rel=2,gains={1:2})",
    "nDCGRel", "nDCGRel(gains={3:0.5})", "RBPGraded", "RBPGraded(p=0.8,gains={2:4})@10",
    "RBPResid", "RBPResid(p=0.95)", "GMBpref", "GMBpref(rel=2)", "RelP@10", "RelP(rel=2)@5",
    "RprecMult", "RprecMult(mult=0.2)", "RprecMult(rel=3,mult=1.8)", "SetAP", "SetAP(rel=2)",
    "SetRelP", "SetRelP(rel=2)", "Utility", "Utility(a=2.0)",
    "Utility(rel=2,a=3.0,b=-2.5,c=-1.0,d=0.001,docs=500000)", "NumNonRelJudgedRet",
    "NumNonRelJudgedRet(rel=2)", "IPrec11", "IPrec11(levels={0.25,0.5,0.75})",
    "IPrec11(rel=2,levels={0,0,1})", "Success@2", "Success@1000",
]


@pytest.mark.parametrize("name", CANONICAL)
def test_canonical_names_parse_back_to_themselves(name):
    measure = parse(name)
    assert str(measure) == name
    assert parse(str(measure)) == measure
    assert hash(measure) == hash(parse(name))


@pytest.mark.parametrize("name", names())
def test_every_registered_measure_round_trips(name):
    spec = Measure(name).spec
    cutoff = None if spec.cutoff != "required" else (0.5 if spec.cutoff_kind is float else 5)
    measure = make(name, cutoff)
    assert parse(str(measure)) == measure


@pytest.mark.parametrize(("given", "canonical"), [
    ("nDCG(gains={2:3, 1:1, 0:0})@10", "nDCG(gains={0:0,1:1,2:3})@10"),  # sorted, spaces
    ("nDCG(gains={1:3.0})", "nDCG(gains={1:3})"),
    ("nDCG(gains={})", "nDCG"),  # no listed level: the default
    ("IPrec11(levels={0.75,.25,0.5})", "IPrec11(levels={0.25,0.5,0.75})"),
    ("IPrec11(levels={1,0.9,0.8,0.7,0.6,0.5,0.4,0.3,0.2,0.1,0})", "IPrec11"),
    ("RprecMult(mult=1)", "RprecMult"),
    ("Utility(a=1,b=-1,c=0,d=0,docs=0)", "Utility"),
    ("RBPGraded(p=0.9)", "RBPGraded"),
])
def test_equivalent_spellings_are_one_measure(given, canonical):
    assert str(parse(given)) == canonical
    assert parse(given) == parse(canonical)


# Every name trec_eval 10 prints for -m all_trec (runid and relstring aside), and the names it
# prints for measure parameters (its quicktest's out.test.meas_params).
TREC_EVAL_NAMES = {
    "gm_bpref": "GMBpref", "Rndcg": "RnDCG", "G": "G", "binG": "BinG", "utility": "Utility",
    "relative_P_10": "RelP@10", "relative_P_1000": "RelP@1000",
    "Rprec_mult_0.20": "RprecMult(mult=0.2)", "Rprec_mult_1.00": "RprecMult",
    "Rprec_mult_2.00": "RprecMult(mult=2.0)", "num_nonrel_judged_ret": "NumNonRelJudgedRet",
    "set_map": "SetAP", "set_relative_P": "SetRelP", "ndcg_rel": "nDCGRel", "rbp": "RBPGraded",
    "rbp_resid": "RBPResid", "success_2": "Success@2", "success_20": "Success@20",
    "ndcg_1=3,2=9,4=4.5": "nDCG(gains={1:3,2:9,4:4.5})", "11pt_avg": "IPrec11",
    "11pt_avg_.25,.5,.75": "IPrec11(levels={0.25,0.5,0.75})",
    "utility_2,-1,0,0": "Utility(a=2.0)", "Rprec_mult_5.00": "RprecMult(mult=5.0)",
    "G_1=3,2=9": "G(gains={1:3,2:9})", "Rndcg_1=3": "RnDCG(gains={1:3})",
    "ndcg_rel_4=4.5": "nDCGRel(gains={4:4.5})", "rbp_p=0.8": "RBPGraded(p=0.8)",
    "rbp_p=0.8,2=3": "RBPGraded(p=0.8,gains={2:3})", "rbp_resid_p=0.5": "RBPResid(p=0.5)",
    "ndcg": "nDCG", "ndcg_cut_10": "nDCG@10", "map": "AP", "gm_map": "GMAP", "bpref": "Bpref",
}


@pytest.mark.parametrize(("trec_name", "canonical"), TREC_EVAL_NAMES.items())
def test_trec_eval_names_are_aliases(trec_name, canonical):
    assert str(parse(trec_name)) == canonical


def test_the_python_constructions_other_code_uses():
    gains = {1: 3.0, 2: 9.0, 4: 4.5}
    assert str(make("nDCG", gains=gains)) == "nDCG(gains={1:3,2:9,4:4.5})"
    assert str(make("nDCG", 10, gains=gains)) == "nDCG(gains={1:3,2:9,4:4.5})@10"
    assert make("nDCG", gains=gains)["gains"] == ((1, 3.0), (2, 9.0), (4, 4.5))
    assert make("nDCG", gains=[(4, 4.5), (1, 3), (2, 9)]) == make("nDCG", gains=gains)
    for name in ("G", "RnDCG", "nDCGRel", "RBPGraded"):
        assert str(make(name, gains=gains)) == f"{name}(gains={{1:3,2:9,4:4.5}})"
    assert make("IPrec11", levels=(0.25, 0.5, 0.75))["levels"] == (0.25, 0.5, 0.75)
    assert make("IPrec11")["levels"] == tuple(i / 10 for i in range(11))
    utility = make("Utility", a=2.0, b=-1.0, c=0.0, d=0.0, docs=0)
    assert str(utility) == "Utility(a=2.0)" and utility["docs"] == 0 and utility["b"] == -1.0
    assert str(make("RprecMult", mult=0.2)) == "RprecMult(mult=0.2)"
    assert str(make("RelP", 10)) == "RelP@10"
    assert str(make("SetAP")) == "SetAP" and str(make("GMBpref")) == "GMBpref"
    for name, cutoff in (("RelP", 10), ("RprecMult", None), ("SetAP", None), ("GMBpref", None),
                         ("SetRelP", None), ("Utility", None), ("NumNonRelJudgedRet", None),
                         ("BinG", None), ("RnDCG", None), ("IPrec11", None)):
        assert make(name, cutoff, rel=3)["rel"] == 3


@pytest.mark.parametrize(("name", "message"), [
    ("nDCG(gains={1:x})", "gains must be a map"),
    ("nDCG(gains={1:2,1:3})", "gains must be a map"),  # a level twice
    ("nDCG(gains={1.5:2})", "gains must be a map"),
    ("nDCG(gains={1:inf})", "gains must be a map"),
    ("nDCG(gains={1})", "gains must be a map"),
    ("nDCG(gains=3)", "gains must be a map"),
    ("nDCG(gains={-1:2})", "gains map labels >= 0"),
    ("nDCG(gains={{1:2}})", "braces are not balanced or nested"),
    ("nDCG(gains={1:2)", "braces are not balanced or nested"),
    ("nDCG(gains=1:2})", "braces are not balanced or nested"),
    ("IPrec11(levels={})", "at least one"),
    ("IPrec11(levels={1.5})", "in [0, 1]"),
    ("IPrec11(levels=0.5)", "levels must be a sequence"),
    ("IPrec11(levels={0.5},levels={0.5})", "given twice"),
    ("RprecMult(mult=-1)", "mult must be >= 0"),
    ("Utility(docs=-5)", "docs must be >= 0"),
    ("Utility(docs=1.5)", "docs must be int"),
    ("Utility(a=nan)", "a must be finite"),
    ("RBPGraded(p=1)", "strictly between 0 and 1"),
    ("RBPResid@10", "takes no cutoff"),
    ("RelP", "needs a cutoff"),
    ("ndcg_-1=2", "gains map labels >= 0"),
    ("utility_2,x,0,0", "b must be float"),
])
def test_malformed_values_are_input_errors(name, message):
    with pytest.raises(InputError, match=message.replace("[", r"\[").replace("(", r"\(")):
        parse(name)


@pytest.mark.parametrize(("kind", "given"), [
    (MapOf(int, float), object()), (MapOf(int, float), [(1, 2, 3)]),
    (MapOf(int, float), {True: 1.0}), (SequenceOf(float), 0.5), (SequenceOf(float), ["a"]),
])
def test_kinds_reject_what_they_cannot_read(kind, given):
    with pytest.raises((TypeError, ValueError)):
        kind(given)


@pytest.mark.parametrize(("typo", "suggested"), [
    ("gm_bperf", "gm_bpref"), ("set_mapp", "set_map"), ("rbp_resd", "rbp_resid"),
    ("relative_P", "relative_P_10"), ("Rprec_mult", "Rprec_mult_0.20"), ("Rndgc", "Rndcg"),
])
def test_near_names_are_suggested(typo, suggested):
    with pytest.raises(InputError, match=f"did you mean .*{suggested}"):
        parse(typo)
