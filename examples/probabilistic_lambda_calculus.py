"""Maximum likelihood through two interpreters: a probabilistic lambda calculus and a Prolog.

    L(p0, p1) = l(0)·(l(1)·(l(2)·(l(2)·1.0)))        observations 0, 1, 2, 2
    l(0) = p0,   l(1) = (1 − p0)·p1,   l(2) = (1 − p0)·(1 − p1)
    (p0, p1) ← (p0, p1) + 0.1·∇L(p0, p1),  1000 times from (0.5, 0.5)
    result (0.2500000000000016, 0.33333333349839966); the exact maximum is (1/4, 1/3)

Source: Siskind & Pearlmutter's examples2009 benchmarks "probabilistic-lambda-calculus" and
"probabilistic-prolog" (STALINGRAD repository, examples/examples2009/, 2009), whose figures
BENCHMARKS.md section (d) quotes.  In both, p0 and p1 are AD numbers that flow *through* an
interpreter: the interpreter multiplies them along each branch of the program, and ∇L is taken
of "run the interpreter and multiply the likelihoods of the observations", by forward mode
(gradient_f, one pass per parameter) or reverse mode (gradient_r, one sweep).

1. The lambda calculus: constants, variables, λ, application, ``if`` and ``flip e`` (true with
   probability e, false with 1 − e).  ``evaluate`` returns a distribution, a list of (value,
   probability) pairs: probabilities multiply along each branch and equal values merge.  The model

       (λchoose. choose p0 (λ_. 0) (λ_. choose p1 (λ_. 1) (λ_. 2)))
         (λp. λthen. λelse. if (flip p) (then 0) (else 0))

   passes its branches as thunks, so p1's coin is flipped only on p0's "else" branch; its
   distribution is [(0, p0), (1, (1 − p0)·p1), (2, (1 − p0)·(1 − p1))], and every other factor
   along a branch is an exact 1.0, so l(v) is exactly the product above.  (The original binds
   the two coins in the environment as tagged distributions and renormalizes after every
   application; that total is 1 up to rounding, and leaving it out keeps the products exact.)
2. The Prolog: clauses weighted by a probability, resolved depth-first with unification; a
   proof's probability is its clause's weight times its subgoals' proofs, and l(v) sums the
   proofs of p(v).  The program is the original's:

       p0      : p(0).              p1      : q(1).
       1 − p0  : p(X) :- q(X).      1 − p1  : q(2).

Run:  python examples/probabilistic_lambda_calculus.py [--mode F|R] [--language lambda|prolog]
      (default: both modes, both languages)
"""
import argparse
import itertools
import sys
import time

import dvlad

EXPECTED = (0.2500000000000016, 0.33333333349839966)
OBSERVATIONS = (0, 1, 2, 2)
GRADIENTS = {"F": dvlad.gradient_f, "R": dvlad.gradient_r}


# ---- 1. The probabilistic lambda calculus ------------------------------------------------
# Expressions are tuples: ("const", v), ("var", name), ("lambda", name, body),
# ("apply", callee, argument), ("if", test, then, else), ("flip", probability).

class Closure:
    """A λ's value: its parameter, its body, and the environment it was made in."""
    __slots__ = ("body", "env", "name")

    def __init__(self, name, body, env):
        self.name, self.body, self.env = name, body, env


def merge(pairs):
    """The pairs with equal values combined by adding their probabilities, in first-seen order.

    Atoms (bools, ints, strings, None) are equal when their types and values are (so 0 is not
    False); anything else, a closure say, only to itself.
    """
    merged, where = [], {}
    for value, p in pairs:
        key = (type(value), value) if isinstance(value, (bool, int, str, type(None))) \
            else ("id", id(value))
        if key in where:
            i = where[key]
            merged[i] = (value, merged[i][1] + p)
        else:
            where[key] = len(merged)
            merged.append((value, p))
    return merged


def call(f, a):
    """The distribution of f's body with its parameter bound to a."""
    if not isinstance(f, Closure):
        raise TypeError(f"only a λ can be applied, not {f!r}")
    return evaluate(f.body, {**f.env, f.name: a})


def evaluate(expr, env):
    """The distribution of expr's value in env: merged (value, probability) pairs."""
    kind = expr[0]
    if kind == "const":
        return [(expr[1], 1.0)]
    if kind == "var":
        return [(env[expr[1]], 1.0)]
    if kind == "lambda":
        return [(Closure(expr[1], expr[2], env), 1.0)]
    if kind == "apply":
        arguments = evaluate(expr[2], env)
        return merge((v, pf * (pa * pv))
                     for f, pf in evaluate(expr[1], env)
                     for a, pa in arguments
                     for v, pv in call(f, a))
    if kind == "if":
        return merge((v, pt * pv)
                     for test, pt in evaluate(expr[1], env)
                     for v, pv in evaluate(expr[2] if test else expr[3], env))
    if kind == "flip":
        return merge(pair for p, pp in evaluate(expr[1], env)
                     for pair in ((True, pp * p), (False, pp * (1.0 - p))))
    raise ValueError(f"not an expression: {expr!r}")


def const(v):
    return ("const", v)


def var(name):
    return ("var", name)


def lam(name, body):
    return ("lambda", name, body)


def apply(f, *args):
    """f applied to args one at a time (curried)."""
    for a in args:
        f = ("apply", f, a)
    return f


def thunk(body):
    return lam("_", body)


# choose p then else = if (flip p) then else, with then and else as thunks.
CHOOSE = lam("p", lam("then", lam("else",
             ("if", ("flip", var("p")), apply(var("then"), const(0)),
              apply(var("else"), const(0))))))
MODEL = apply(lam("choose", apply(var("choose"), var("p0"), thunk(const(0)),
                                  thunk(apply(var("choose"), var("p1"),
                                              thunk(const(1)), thunk(const(2)))))),
              CHOOSE)


def lambda_likelihoods(p):
    """[l(v) for v in OBSERVATIONS]: the model's distribution at (p0, p1), read off by value."""
    distribution = evaluate(MODEL, {"p0": p[0], "p1": p[1]})
    return [next((q for v, q in distribution if type(v) is int and v == observed), 0.0)
            for observed in OBSERVATIONS]


# ---- 2. The probabilistic Prolog ----------------------------------------------------------
# Terms: a compound term is a tuple (functor, arg, ...), a variable is a string starting with an
# upper-case letter, anything else is a constant.  A clause is (probability, head, body goals).

def is_var(t):
    return isinstance(t, str) and t[:1].isupper()


def walk(t, s):
    """t with its variable chain in substitution s followed to its end."""
    while is_var(t) and t in s:
        t = s[t]
    return t


def occurs(x, t, s):
    t = walk(t, s)
    return t == x if is_var(t) else isinstance(t, tuple) and any(occurs(x, u, s) for u in t[1:])


def unify(a, b, s):
    """s extended so that a and b are equal, or None when they cannot be."""
    a, b = walk(a, s), walk(b, s)
    if is_var(a) and a == b:
        return s
    if is_var(a):
        return None if occurs(a, b, s) else {**s, a: b}
    if is_var(b):
        return unify(b, a, s)
    if isinstance(a, tuple) and isinstance(b, tuple):
        if a[0] != b[0] or len(a) != len(b):
            return None
        for u, v in zip(a[1:], b[1:]):
            s = unify(u, v, s)
            if s is None:
                return None
        return s
    return s if type(a) is type(b) and a == b else None


def rename(t, suffix):
    """t with every variable given the suffix: a fresh copy of a clause for one resolution."""
    if is_var(t):
        return t + suffix
    if isinstance(t, tuple):
        return (t[0],) + tuple(rename(u, suffix) for u in t[1:])
    return t


def proofs(goal, clauses, s, fresh):
    """(probability, substitution) for every proof of goal under s, depth first.

    A proof's probability is (clause weight · proof of goal 1) · proof of goal 2 ...
    """
    found = []
    for weight, head, body in clauses:
        suffix = f"_{next(fresh)}"
        s1 = unify(goal, rename(head, suffix), s)
        if s1 is None:
            continue
        partial = [(weight, s1)]
        for subgoal in body:
            subgoal = rename(subgoal, suffix)
            partial = [(q * r, s3) for q, s2 in partial
                       for r, s3 in proofs(subgoal, clauses, s2, fresh)]
        found.extend(partial)
    return found


def program(p):
    """The original's four clauses, weighted by p0, 1 − p0, p1, 1 − p1."""
    return [(p[0], ("p", 0), []),
            (1.0 - p[0], ("p", "X"), [("q", "X")]),
            (p[1], ("q", 1), []),
            (1.0 - p[1], ("q", 2), [])]


def prolog_likelihoods(p):
    """[l(v) for v in OBSERVATIONS], l(v) = Σ probability of the proofs of p(v), a right fold."""
    clauses, fresh = program(p), itertools.count()
    out = []
    for v in OBSERVATIONS:
        total = 0.0
        for q, _ in reversed(proofs(("p", v), clauses, {}, fresh)):
            total = q + total
        out.append(total)
    return out


# ---- Maximum likelihood -------------------------------------------------------------------
LANGUAGES = {"lambda": lambda_likelihoods, "prolog": prolog_likelihoods}


def likelihood(likelihoods):
    """p ↦ l(0)·(l(1)·(l(2)·(l(2)·1.0))), the l(v) from one run of an interpreter."""
    def L(p):
        total = 1.0
        for l in reversed(likelihoods(p)):
            total = l * total
        return total
    return L


def gradient_ascent(f, x, steps, rate, gradient):
    """x ← x + rate·∇f(x), steps times; ∇ by the given gradient operator."""
    grad = gradient(f)
    for _ in range(steps):
        x = [xi + rate * gi for xi, gi in zip(x, grad(x))]
    return x


def fit(language="lambda", mode="F", steps=1000, rate=0.1):
    """The maximum-likelihood (p0, p1) after `steps` gradient-ascent steps from (0.5, 0.5)."""
    return tuple(gradient_ascent(likelihood(LANGUAGES[language]), [0.5, 0.5], steps, rate,
                                 GRADIENTS[mode]))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mode", choices=sorted(GRADIENTS), action="append",
                        help="F: gradient_f, R: gradient_r (default: both)")
    parser.add_argument("--language", choices=sorted(LANGUAGES), action="append",
                        help="which interpreter (default: both)")
    args = parser.parse_args(argv)

    print("the lambda-calculus model's distribution at (p0, p1) = (0.5, 0.5):",
          evaluate(MODEL, {"p0": 0.5, "p1": 0.5}))
    failures = 0
    for language in args.language or sorted(LANGUAGES):
        for mode in args.mode or sorted(GRADIENTS):
            start = time.perf_counter()
            p = fit(language, mode)
            seconds = time.perf_counter() - start
            error = max(abs(a - b) for a, b in zip(p, EXPECTED))
            ok = error <= 1e-12
            failures += not ok
            print(f"{language:6s} {mode}: (p0, p1) = ({p[0]!r}, {p[1]!r})  "
                  f"|Δ| = {error:.1e}  {seconds:.2f} s  {'ok' if ok else 'WRONG'}")
    if failures:
        print(f"expected {EXPECTED}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
