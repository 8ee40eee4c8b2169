"""Issue #19: the tour a student follows alone (python -m dvlad [N] [--list] [--step]).

Every snippet a section prints is run again here, in a fresh namespace, and must give what the
tour printed; the sections' key numbers are checked against values computed here; navigation by
number, name and range, --list and --step (with stdin a pipe, at EOF) are run as a student would.
"""
import contextlib
import io
import math
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import dvlad
from dvlad.teaching import lesson, tour_basics, tour_more
from dvlad.teaching.tour import SECTIONS

ROOT = Path(__file__).resolve().parent.parent
NAMES = [s.name for s in SECTIONS]


def tour(*args, stdin=None):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    done = subprocess.run([sys.executable, "-m", "dvlad", *args], cwd=ROOT, env=env, input=stdin,
                          capture_output=True, text=True, timeout=60)
    assert "Traceback" not in done.stdout + done.stderr, done.stderr
    return done


def flat(text):
    """text with whitespace runs made one space and tag numbers made ε (they depend on how many
    tags the process had made)."""
    return re.sub(r"ε\d+", "ε", " ".join(text.split()))


def headers(out):
    return re.findall(r"^\[(\d+)/(\d+)\] .*  \((\w+)\)$", out, re.MULTILINE)


# ---- every printed snippet, run again --------------------------------------------------------------

def recorded(section, monkeypatch):
    """Run one section in this process; (its stdout, [(kind, code, what it printed)]) where kind
    is "show" (an expression and its value's repr) or "run" (statements and their output, or the
    type of what they raised)."""
    steps = []
    real_show, real_run = lesson.show, lesson.run

    def show(code, env, note=None):
        value = real_show(code, env, note)
        steps.append(("show", code, repr(value)))
        return value

    def run(code, env):
        buf = io.StringIO()
        try:
            with contextlib.redirect_stdout(buf):
                real_run(code, env)
        except Exception as e:
            steps.append(("run", code, type(e)))
            raise
        finally:
            print(buf.getvalue(), end="")
        printed = buf.getvalue().split("\n")
        steps.append(("run", code, "\n".join(ln[2:] for ln in printed
                                              if not ln.startswith(("  >>> ", "  ... ")))))
    for module in (tour_basics, tour_more):
        monkeypatch.setattr(module, "show", show)
        monkeypatch.setattr(module, "run", run)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        section.run()
    return out.getvalue(), steps


@pytest.mark.parametrize("section", SECTIONS, ids=NAMES)
def test_every_printed_snippet_gives_what_the_tour_printed(section, monkeypatch):
    """Replayed in a fresh namespace, in order: each expression's repr and each statement's
    printed output must be the tour's (tag numbers aside)."""
    out, steps = recorded(section, monkeypatch)
    assert steps, "a section shows code"
    env = {}
    for kind, code, printed in steps:
        assert f">>> {code.splitlines()[0]}" in out
        if kind == "show":
            assert flat(repr(eval(code, env))) == flat(printed), code
            assert flat(printed) in flat(out)
        elif isinstance(printed, type):
            with pytest.raises(printed):
                exec(code, env)
        else:
            buf = io.StringIO()
            with contextlib.redirect_stdout(buf):
                exec(code, env)
            assert flat(buf.getvalue()) == flat(printed), code


# ---- what the sections teach, checked against values computed here -----------------------------

def section_output(name):
    done = tour(name)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_forward_introduces_D_and_shows_the_bundle_arithmetic():
    out = section_output("forward")
    assert ">>> import dvlad as ad\n  ... D = ad.derivative" in out
    m = re.search(r"Bundle\(ε(\d+), 3\.0, 1\.0\)   # x = 3 \+ ε(\d+)", out)
    assert m and m.group(1) == m.group(2)
    t = f"ε{m.group(1)}"
    assert f"(3 + {t})(3 + {t}) = 9 + 6{t} + {t}² = 9 + 6{t} ({t}² = 0)" in " ".join(out.split())
    assert f"Bundle({t}, 9.0, 6.0)" in out
    assert f">>> D(f)(3.0)\n  {dvlad.derivative(lambda x: x * x)(3.0)!r}" in out


def test_reverse_introduces_R_and_shows_a_tape_cell():
    out = section_output("reverse")
    assert ">>> import dvlad as ad\n  ... R = ad.gradient_r" in out
    assert re.search(r"TapeCell\(ε\d+#2, 6\.0, partials=\{#0: 3\.0, #1: 2\.0\}\)", out)
    assert "(∂out/∂#0 = 3, ∂out/∂#1 = 2" in " ".join(out.split())
    assert repr(dvlad.gradient_r(lambda d: d["a"] * d["b"])({"a": 3.0, "b": 4.0})) in out


def test_section_3_traces_the_two_epsilons_and_where_they_merge():
    """python -m dvlad 3: naive x = 1+ε, y = 1+ε, x+y = 2+2ε, the inner call reads 2 (should be
    1), the answer 2; tagged: x+y = 2 + εa + εb, the inner call reads εb's 1, the answer 1."""
    done = tour("3")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert headers(out) == [("3", str(len(SECTIONS)), "confusion")]
    lines = [" ".join(ln.split()) for ln in out.splitlines()]
    naive = ">>> naive.derivative(lambda x: x * naive.derivative(lambda y: x + y)(1.0))(1.0)"
    k = out.splitlines().index("  " + naive)
    assert lines[k + 1].startswith(
        f"{dvlad.naive.derivative(lambda x: x * dvlad.naive.derivative(lambda y: x + y)(1.0))(1.0)}")
    assert "outer call: x = 1 + ε Dual(1.0, 1.0)" in lines
    assert "inner call: y = 1 + ε Dual(1.0, 1.0): the SAME ε, nobody's in particular" in lines
    assert "x + y = 2 + 2ε Dual(2.0, 2.0)" in lines
    merged = next(ln for ln in lines if ln.startswith("inner returns the coefficient of ε: 2"))
    assert "merged" in merged and "should be 1" in merged
    assert "outer returns the coefficient of ε: 2 (right: 1)" in lines
    m = re.search(r"x \+ y = 2 \+ ε(\d+) \+ ε(\d+) Bundle\(ε(\d+), Bundle\(ε(\d+), 2\.0, 1\.0\), "
                  r"1\.0\)", "\n".join(lines))
    assert m, out
    a, b, outside, inside = (int(g) for g in m.groups())
    assert b > a and (outside, inside) == (b, a)             # the newest tag outside
    assert f"inner returns the coefficient of ε{b}: 1" in "\n".join(lines)
    assert f"outer returns the coefficient of ε{a}: 1 (right)" in lines
    assert f"outer call: x · 1 = 1 + ε{a} Bundle(ε{a}, 1.0, 1.0)" in lines
    assert "  3.0   # wrong" in out and "  2.0   # right" in out          # the 2008 variant


def test_nesting_by_name_introduces_D_and_R_before_using_them():
    out = section_output("nesting")
    intro = out.index("D, R = ad.derivative, ad.gradient_r")
    first_use = out.index(">>> D(")
    assert intro < first_use
    for outer in "DR":
        for inner in "DR":
            assert f">>> {outer}(lambda x: x * {inner}(lambda y: x + y)(1.0))(1.0)\n  1.0\n" in out
    d, r = dvlad.derivative, dvlad.gradient_r
    assert f"\n  {d(lambda x: r(lambda y: x * y * y)(x))(3.0)!r}   # " in out
    assert repr(dvlad.hessian(lambda p: p[0] ** 2 * p[1])((1.0, 2.0))) in out


def test_amazing_bug_section_prints_e_to_the_7():
    out = section_output("functions")
    assert out.count(f"\n  {math.exp(7)!r}\n") == 2
    assert "D = ad.derivative" in out


def test_tape_section_prints_the_table_and_the_dot_text():
    out = section_output("tape")
    f = lambda p: dvlad.sin(p[0]) * p[1] + p[0]             # noqa: E731  (the section's f)
    table = dvlad.tape_text(f, (0.5, 2.0))
    for line in table.splitlines()[1:]:
        assert flat(line) in flat(out)
    assert "<- output" in out and "digraph tape {" in out
    grad = dvlad.gradient_r(f)((0.5, 2.0))
    assert f"sensitivity {grad[0]!r}" in out and f"sensitivity {grad[1]!r}" in out
    cos = math.cos(0.5)                # the sweep's sum for x[0], written out: 2·cos 0.5 + 1
    assert (f"For #0 (x[0]) that is 2.0 × {cos!r} (from #2) + 1.0 × 1.0 (from #4) = "
            f"{2.0 * cos + 1.0!r}, its sensitivity {grad[0]!r}.") in " ".join(out.split())


def test_arrays_section_prints_a_whole_error_from_a_function_with_no_rule():
    x = np.array([0.5, 0.9, 1.1, 0.7])
    code, error = tour_more.loud_array_error(x)
    assert isinstance(error, dvlad.DvladError)
    out = section_output("arrays")
    assert f">>> ad.gradient_r(lambda x: {code})(x)" in out
    assert f"{type(error).__name__}:" in out
    assert flat(str(error)) in flat(out)                    # whole, not cut off
    assert flat(str(error)).endswith((".", ")"))
    assert repr(dvlad.gradient_r(lambda v: np.sum(100.0 * (v[1:] - v[:-1] ** 2) ** 2 +
                                                  (1.0 - v[:-1]) ** 2))(x)) in out


def test_arrays_section_survives_every_function_gaining_a_rule(monkeypatch):
    """Should np.fft.fft and the rest get rules, the section shows the conversion error instead."""
    monkeypatch.setattr(tour_more, "NO_RULE", ["np.sum(x)"])
    code, error = tour_more.loud_array_error(np.ones(3))
    assert code == "np.sum(np.asarray(x, dtype=float))"
    assert isinstance(error, dvlad.PerturbedConversionError)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        tour_more.arrays()
    assert "PerturbedConversionError:" in out.getvalue()
    assert "np.array([...])" in flat(out.getvalue())


def test_the_first_candidate_with_no_rule_is_really_refused_today():
    """(When this fails, np.fft.fft has gained a rule: the section moves on by itself; update
    NO_RULE's order to keep a genuine example first.)"""
    code, error = tour_more.loud_array_error(np.ones(3))
    assert code == tour_more.NO_RULE[0]
    assert isinstance(error, dvlad.NotDifferentiableError)
    assert "numpy.fft.fft has no dvlad rule" in str(error)


def test_loud_section_prints_the_teaching_errors_whole():
    out = section_output("loud")
    assert ">>> ad.derivative(lambda x: math.sin(x))(1.0)" in out
    text = flat(out)
    assert "PerturbedConversionError (a TypeError):" in out
    assert re.search(r"float\(\) of a number carrying perturbation ε would silently drop its "
                     r"derivative\. ε was made by the derivative call started at "
                     r"<python -m dvlad #\d+>:1 \(`ad\.derivative\(lambda x: math\.sin\(x\)\)"
                     r"\(1\.0\)`\)", text), text
    assert "TagOrderError:" in out and "lifted on the newest tag among its arguments" in text
    assert "so its derivative is counted" in text


def test_compiled_section_shows_the_source():
    out = section_output("compiled")
    assert ">>> print(g.source())" in out and "def replay(values):" in out
    g = dvlad.gradient_r(lambda p: p[0] * dvlad.sin(p[1]))
    assert f"\n  {list(g([2.0, 0.5]))!r}   # " in out


# ---- navigation ---------------------------------------------------------------------------------

def test_list_prints_numbered_sections():
    done = tour("--list")
    assert done.returncode == 0
    lines = done.stdout.splitlines()
    assert len(lines) == len(SECTIONS)
    for k, (line, s) in enumerate(zip(lines, SECTIONS), 1):
        assert re.fullmatch(rf"\s*{k}  {s.name}\s+{re.escape(s.title)}", line), line


def test_sections_by_number_range_and_name():
    n = len(SECTIONS)
    done = tour("2", "nesting")
    assert [h[2] for h in headers(done.stdout)] == ["reverse", "nesting"]
    assert f"Next: python -m dvlad 5  ({SECTIONS[4].title})" in done.stdout
    done = tour("3-4")
    assert [h[:2] for h in headers(done.stdout)] == [("3", str(n)), ("4", str(n))]
    done = tour(f"{n - 1}-")
    assert [h[2] for h in headers(done.stdout)] == NAMES[-2:]
    assert "Next:" not in done.stdout


@pytest.mark.parametrize("bad", ["0", "99", "4-2", "x-"])
def test_a_bad_section_number_is_an_error_that_lists_the_sections(bad):
    done = tour(bad)
    assert done.returncode == 2
    assert f"unknown section {bad}" in done.stderr
    assert all(name in done.stderr for name in NAMES)


def test_step_pauses_between_sections_and_q_stops():
    done = tour("--step", "1-3", stdin="\nq\n")
    assert done.returncode == 0
    assert [h[2] for h in headers(done.stdout)] == NAMES[:2]
    assert done.stdout.count("-- Enter: section") == 2
    assert "-- Enter: section 2, q: stop --" in done.stdout


def test_step_at_end_of_input_runs_on_without_hanging():
    """stdin a pipe with nothing (or /dev/null): EOF at the first pause, the rest runs."""
    done = tour("--step", stdin="")
    assert done.returncode == 0
    assert [h[2] for h in headers(done.stdout)] == NAMES
    done = tour("--step", "1-2", stdin="\n")
    assert [h[2] for h in headers(done.stdout)] == NAMES[:2]


def test_every_section_says_why_in_one_sentence():
    for s in SECTIONS:
        sentence = lesson.why(s.run)
        assert sentence.endswith(".") and sentence.count(". ") == 0, s.name


# ---- examples/teaching.py opens as a notebook ---------------------------------------------------

def test_the_notebook_example_is_in_cell_format():
    """Percent format (VS Code, Jupytext): `# %%` starts a code cell, `# %% [markdown]` a markdown
    cell whose every line is a comment; the file starts with a markdown cell and no cell is
    empty.  (tests/test_examples.py runs it.)"""
    text = (ROOT / "examples" / "teaching.py").read_text(encoding="utf-8")
    cells = re.split(r"^(# %%.*)$", text, flags=re.MULTILINE)
    assert cells[0] == ""
    markers, bodies = cells[1::2], cells[2::2]
    assert markers[0] == "# %% [markdown]"
    kinds = list(markers)
    assert set(kinds) == {"# %%", "# %% [markdown]"}
    assert kinds.count("# %%") >= 6 and kinds.count("# %% [markdown]") >= 6
    for marker, body in zip(markers, bodies):
        lines = [ln for ln in body.strip("\n").splitlines()]
        assert lines, marker
        if marker == "# %% [markdown]":
            assert all(ln == "#" or ln.startswith("# ") for ln in lines), lines
        else:
            assert any(ln and not ln.startswith("#") for ln in lines)
    assert text.count("assert ") >= 15
