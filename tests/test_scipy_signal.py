"""scipy.signal's convolutions (dvlad/operators/scipy_signal.py) and numpy.fft's fftshift and
ifftshift on dvlad numbers: scipy's and numpy's values, exact gradients where they are a
re-indexing, derivatives to order 2 in both modes (check_grads)."""
import numpy as np
import pytest

import dvlad as ad

ss = pytest.importorskip("scipy.signal")

RNG = np.random.default_rng(0)
SHAPES = [((7,), (3,)), ((4,), (6,)), ((4, 5), (2, 3)), ((2, 3), (4, 5)), ((5, 6), (2, 2)),
          ((3, 2, 4), (2, 2, 3))]
MODES = ("full", "same", "valid")
FUNCTIONS = ("convolve", "correlate", "fftconvolve", "oaconvolve", "convolve2d", "correlate2d")


def _cases():
    for name in FUNCTIONS:
        for sa, sb in SHAPES:
            if name.endswith("2d") and len(sa) != 2:
                continue
            for mode in MODES:
                yield name, sa, sb, mode


CASES = list(_cases())


@pytest.mark.parametrize("name, sa, sb, mode", CASES,
                         ids=[f"{n}-{sa}-{sb}-{m}" for n, sa, sb, m in CASES])
def test_values_equal_scipys_and_derivatives_in_both_inputs(name, sa, sb, mode):
    fn = getattr(ss, name)
    a, b = RNG.standard_normal(sa), RNG.standard_normal(sb)
    want = fn(a, b, mode)
    for got in (ad.jvp(lambda u: fn(u, b, mode), a, a)[0],        # in1 carries a dvlad number
                ad.jvp(lambda u: fn(a, u, mode), b, b)[0]):       # in2 does
        assert np.shape(got) == want.shape
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-13)
    # linear in each input: the tangent along in1 is the convolution of the tangent
    t = RNG.standard_normal(sa)
    np.testing.assert_allclose(ad.jvp(lambda u: fn(u, b, mode), a, t)[1], fn(t, b, mode),
                               rtol=1e-12, atol=1e-13)
    w = RNG.standard_normal(want.shape)
    ad.check_grads(lambda p: np.sum(np.sin(fn(p[0], p[1], mode)) * w), (a, b), order=2)


def test_gradient_of_a_correlation_is_the_other_signal_shifted():
    # L = Σ_k correlate(x, h, 'valid')[k] · w[k] = Σ_k Σ_j x[k + j] h[j] w[k]:
    # ∂L/∂x[i] = Σ_j h[j] w[i − j] = convolve(w, h, 'full')[i]
    x, h = RNG.standard_normal(9), RNG.standard_normal(4)
    w = RNG.standard_normal(6)
    g = ad.gradient_r(lambda u: np.sum(ss.correlate(u, h, "valid") * w))(x)
    np.testing.assert_allclose(g, np.convolve(w, h, "full"), rtol=1e-14, atol=1e-15)


def test_a_float32_input_keeps_its_values():
    a, b = RNG.standard_normal((4, 5)).astype(np.float32), RNG.standard_normal((2, 2))
    got = ad.jvp(lambda u: ss.convolve(u, b), a, a)[0]
    np.testing.assert_allclose(got, ss.convolve(a, b), rtol=1e-6)


def test_what_dvlad_does_not_take_raises_by_name():
    a, b = RNG.standard_normal((4, 5)), RNG.standard_normal((2, 2))
    with pytest.raises(ad.NotDifferentiableError, match="boundary='wrap'"):
        ad.gradient_r(lambda u: np.sum(ss.convolve2d(u, b, boundary="wrap")))(a)
    with pytest.raises(ad.NotDifferentiableError, match="fillvalue=1"):
        ad.gradient_r(lambda u: np.sum(ss.correlate2d(u, b, fillvalue=1)))(a)
    with pytest.raises(ad.NotDifferentiableError, match=r"fftconvolve with axes=\[1\]"):
        ad.gradient_r(lambda u: np.sum(ss.fftconvolve(u, b, axes=[1])))(a)
    with pytest.raises(ValueError, match="same dimensionality"):
        ad.gradient_r(lambda u: np.sum(ss.convolve(u, b[0])))(a)
    with pytest.raises(ValueError, match="at least as large"):
        ad.gradient_r(lambda u: np.sum(ss.convolve(u, np.ones((5, 2)), "valid")))(a)


def test_calls_without_dvlad_numbers_are_scipys_own():
    assert ss.convolve.__wrapped__.__module__.startswith("scipy.signal")
    a = RNG.standard_normal(5)
    np.testing.assert_array_equal(ss.convolve(a, a), ss.convolve.__wrapped__(a, a))


@pytest.mark.parametrize("axes", [None, 0, 1, (0, 1), -1])
@pytest.mark.parametrize("shift", [np.fft.fftshift, np.fft.ifftshift])
def test_fftshift_gradient_is_the_inverse_shift(shift, axes):
    x, w = RNG.standard_normal((3, 4)), RNG.standard_normal((3, 4))
    inverse = np.fft.ifftshift if shift is np.fft.fftshift else np.fft.fftshift
    np.testing.assert_array_equal(ad.jvp(lambda u: shift(u, axes), x, x)[0], shift(x, axes))
    np.testing.assert_array_equal(ad.gradient_r(lambda u: np.sum(shift(u, axes) * w))(x),
                                  inverse(w, axes))
    ad.check_grads(lambda u: np.sum(np.sin(shift(u, axes)) * w), x, order=2)
