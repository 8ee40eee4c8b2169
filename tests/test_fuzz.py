"""The differential fuzzer (issue #16): random programs over the rule table, differentiated in
every mode and compared with each other and with mpmath at 30 digits.  tests/fuzz_programs.py
says what each kind of program covers and what it is checked against.

The short profile runs with the suite (a few hundred programs, seconds).  The long profile is
opt-in, 10⁵ programs split over the three kinds in chunks of CHUNK:

    DVLAD_FUZZ=100000 pytest -m fuzz tests/test_fuzz.py -q

or in two processes, each taking every other chunk (the counts add up to DVLAD_FUZZ):

    DVLAD_FUZZ=100000 DVLAD_FUZZ_SHARD=0/2 pytest -m fuzz tests/test_fuzz.py -q &
    DVLAD_FUZZ=100000 DVLAD_FUZZ_SHARD=1/2 pytest -m fuzz tests/test_fuzz.py -q

Each run ends with a line counting the programs checked.  What the fuzzer found is listed in
fuzz_programs.KNOWN_BUGS; each entry's reproduction is an xfail(strict=True) test at the end of
this file, so that fixing the bug makes it fail until the entry is removed.
"""
import os

import mpmath
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

import dvlad as ad
import fuzz_programs as fp

STRATEGIES = {"scalar": fp.scalar_programs(), "struct": fp.struct_programs(),
              "array": fp.array_programs()}
SHORT = {"scalar": 120, "struct": 50, "array": 80}          # ~10 s together on one core
SHARE = {"scalar": 0.5, "struct": 0.2, "array": 0.3}         # of the long profile's programs
CHUNK = 1000
QUIET = [HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large]


# ---- the short profile ------------------------------------------------------------------------

@pytest.mark.parametrize("kind", fp.KINDS)
def test_programs(kind):
    @settings(max_examples=SHORT[kind], deadline=None, suppress_health_check=QUIET)
    @given(STRATEGIES[kind])
    def run(program):
        fp.check(program)
    run()


# ---- the long profile ---------------------------------------------------------------------------

def chunks():
    """(kind, index, size) for the long profile: DVLAD_FUZZ programs in all (default 10⁵),
    shared among the kinds, cut into chunks of CHUNK; with DVLAD_FUZZ_SHARD=i/n only every
    n-th chunk, from the i-th."""
    total = int(os.environ.get("DVLAD_FUZZ") or 100_000)
    sizes = {k: int(total * SHARE[k]) for k in fp.KINDS}
    sizes["scalar"] += total - sum(sizes.values())
    out = [(k, i, min(CHUNK, sizes[k] - start))
           for k in fp.KINDS for i, start in enumerate(range(0, sizes[k], CHUNK))]
    shard, shards = map(int, os.environ.get("DVLAD_FUZZ_SHARD", "0/1").split("/"))
    return [c for n, c in enumerate(out) if n % shards == shard]


def pytest_generate_tests(metafunc):
    """The long profile's chunks, when it is selected (else one placeholder, which conftest.py
    skips: a default run shows one skip, not a hundred)."""
    if metafunc.function.__name__ == "test_long_programs":
        selected = "fuzz" in (metafunc.config.getoption("markexpr") or "") or \
            os.environ.get("DVLAD_FUZZ")
        metafunc.parametrize("kind, index, size", chunks() if selected else [("scalar", 0, 0)],
                             ids=lambda v: str(v))


@pytest.mark.fuzz
def test_long_programs(kind, index, size):
    # (no example database: a failure saved by one chunk would be replayed, and fail, by every
    # later chunk of its kind, and nothing else would be fuzzed)
    @settings(max_examples=size, deadline=None, suppress_health_check=QUIET, database=None)
    @given(STRATEGIES[kind])
    def run(program):
        fp.check(program)
    run()


# ---- the checks can fail -------------------------------------------------------------------------

def scalar(body, x=0.7, order=2, modes=("FR", "RF"), **more):
    return fp.Program.written("scalar", body, x, order, modes=modes, **more)


def test_a_right_program_passes():
    fp.check(scalar("""
        v1 = ad.sin(x) * ad.exp(x)
        def g2(y3):
            return x * y3
        v4 = ad.derivative(g2)(0.3)
        return v1 * v4
        """, oracle="""
        v1 = ad.sin(x) * ad.exp(x)
        def g2(y3):
            return x * y3
        v4 = diff_(g2, 0.3, 1)
        return v1 * v4
        """))


def test_a_partial_off_by_a_millionth_is_caught():
    """A user primitive whose partial is 1e-6 off: the modes agree with each other, the 30-digit
    truth does not."""
    prelude = ['cube = ad.primitive(lambda x: x ** 3, lambda x: (3 * x * x * 1.000001,), '
               'name="cube")']
    with pytest.raises(AssertionError, match="mpmath"):
        fp.check(scalar("return cube(ad.sin(x))", prelude=prelude))


def test_perturbation_confusion_is_caught():
    """The 2005 example by dvlad's untagged dual numbers (wrong on purpose, dvlad.naive):
    x·D(λy. y·D(λz. y + z)(1))(x) is x·1, the naive pair gives 2x."""
    program = scalar("""
        def g1(y2):
            def g3(y4):
                return y2 + y4
            return y2 * ad.naive.derivative(g3)(1.0)
        return x * ad.naive.derivative(g1)(x)
        """, oracle="""
        def g1(y2):
            def g3(y4):
                return y2 + y4
            return y2 * diff_(g3, 1.0, 1)
        return x * diff_(g1, x, 1)
        """, order=1, modes=("F",))
    with pytest.raises(AssertionError, match="truth|mpmath"):
        fp.check(program)


def test_an_error_on_one_side_only_is_caught():
    runs = {"forward": fp.Outcome(value=1.0),
            "reverse": fp.Outcome(error=ad.StructureMismatchError("a missing key"))}
    with pytest.raises(AssertionError, match="one side only"):
        fp.errors_agree(runs, None)
    runs["forward"] = fp.Outcome(error=ad.ArgumentError("no"))
    with pytest.raises(AssertionError, match="one side only"):
        fp.errors_agree(runs, None)


def test_an_exception_that_is_not_dvlads_propagates():
    def broken():
        raise IndexError("from inside")
    with pytest.raises(IndexError):
        fp.attempt(broken)


def test_a_tie_leaves_the_truth_out_and_the_modes_must_still_agree():
    program = scalar("""
        if x > 0.5:
            return x * x
        return 3 * x
        """, oracle="""
        if gt_(x, 0.5):
            return x * x
        return 3 * x
        """, x=0.5, order=1, modes=("F",))
    skipped = fp.SKIPPED["scalar"]
    fp.check(program)          # forward, reverse and Taylor take the else: 3, the truth is 2
    assert fp.SKIPPED["scalar"] == skipped + 1


@settings(max_examples=5, deadline=None, suppress_health_check=QUIET)
@given(STRATEGIES["struct"])
def test_every_program_prints_as_python_that_runs(program):
    namespace = {}
    exec(repr(program), namespace)
    assert callable(namespace["f"]) and "x" in namespace and "v" in namespace
    with np.errstate(all="ignore"):
        namespace["f"](namespace["x"])


# ---- the bugs the fuzzer found (fuzz_programs.KNOWN_BUGS): reproductions ---------------------
# Each is xfail(strict=True) while its entry is in KNOWN_BUGS: when the bug is fixed the test
# passes, strictness turns that into a failure, and the entry (and the marker) can go.

def known(number):
    names = [k for k, v in fp.KNOWN_BUGS.items() if v == number]
    return pytest.mark.xfail(bool(names), strict=True, reason=f"bug {number}: {names}")


@known(1)
def test_bug_1_fixed_point_of_a_pair_computing_in_float32():
    def g(a):
        return ad.fixed_point(lambda q: (0.25 * ad.sin(q[1]) + 0.5, 0.5 * ad.cos(q[0]) - a),
                              (0.0, 0.0))[0]
    a = np.float32(1.0)
    want = -0.20704335                                     # with x0 in float32, or a pair
    for op in (ad.derivative, ad.gradient_r):              # computing in float64
        assert abs(op(g)(a) - want) < 1e-6                 # FixedPointError: tolerance 4.4e-16


@known(4)
def test_bug_4_one_type_per_derivative():
    x, u = np.array([1.0, 2.0], dtype=np.float32), np.ones(2, dtype=np.float32)
    f = lambda x: np.sum(x * np.array([0.3]))                        # noqa: E731
    kinds = {ad.gradient_r(f)(x).dtype} | {ad.hvp(f, x, u, m).dtype for m in ("fr", "ff")}
    assert len(kinds) == 1, kinds                          # float64, float32 (fr), float64 (ff)
    c = lambda x: 3.0                                                  # noqa: E731
    assert ad.gradient_r(c)(x).dtype == ad.gradient_f(c)(x).dtype     # float32, float64
    x0 = np.array(0.5)
    assert type(ad.hvp(lambda x: x * x, x0, np.array(1.0))) is np.ndarray   # np.float64




@known(10)
def test_bug_10_jacobian_f_at_an_empty_bool_array_sees_float64():
    f = lambda x: np.sum(x - x)                                          # noqa: E731
    x = np.array([], dtype=bool)
    assert ad.jacobian_r(f)(x).shape == (0,)
    assert ad.jacobian_f(f)(x).shape == (0,)               # numpy's TypeError: bool subtract


@known(11)
def test_bug_11_atan2_partials_where_x2_plus_y2_underflows():
    want = 0.5 / 1e-170                                    # ∂/∂x atan2(x, y) = y/(x²+y²) = 5e169
    for op in (ad.derivative, ad.gradient_r):
        got = op(lambda x: ad.atan2(x, 1e-170))(1e-170)    # ZeroDivisionError
        assert abs(got - want) <= 1e-12 * want


@known(12)
def test_bug_12_partials_that_overflow_inside():
    D = ad.derivative
    with np.errstate(all="ignore"):
        for x in (400.0, -400.0, np.float32(45.0)):        # tanh″ is tiny: -2 tanh x / cosh² x
            for got in (D(D(ad.tanh))(x), ad.gradient_r(D(ad.tanh))(x),
                        ad.derivatives(ad.tanh, 2)(x)[2]):
                assert abs(got) < 1e-38, (x, got)          # nan (forward, Taylor)
        softplus = lambda x: ad.logaddexp(x, 0.0)                        # noqa: E731
        assert D(softplus)(-800.0) == 0.0                  # OverflowError: math range error
        assert D(D(softplus))(-800.0) == 0.0


@known(13)
def test_bug_13_taylor_over_reverse_over_a_fixed_point():
    f = lambda x: ad.fixed_point(lambda y: 0.5 * ad.cos(y) + (x - x), 0.0)   # noqa: E731
    T = lambda g: ad.nth_derivative(g, 1)                                     # noqa: E731
    assert ad.derivative(ad.gradient_r(ad.derivative(f)))(0.5) == 0.0
    assert T(ad.gradient_r(ad.derivative(f)))(0.5) == 0.0      # TagOrderError


def test_the_oracle_restores_mpmath_precision():
    dps = mpmath.mp.dps
    fp.check(scalar("return ad.exp(x)", order=1, modes=("F",)))
    assert mpmath.mp.dps == dps
