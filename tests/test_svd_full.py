"""np.linalg.svd with full_matrices=True (numpy's default) of a non-square matrix: s and the
leading columns as in the reduced SVD; the extra columns of U (rows of Vᵀ) are numpy's basis
of the complement, differentiated as a basis that turns with the complement and not within it
(dvlad/arrays/decompositions.py, _complement).  Basis-free quantities (the projector onto the
complement, orthonormality) get exact derivatives; checked against the reduced SVD's formula
and by check_grads."""
import numpy as np
import pytest

import dvlad

SHAPES = [(5, 3), (3, 5), (6, 2), (2, 4, 3), (2, 3, 4)]
MT = lambda x: np.swapaxes(x, -1, -2)


def matrix(shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


def complement_projector(a, full):
    """The projector onto the complement of U's (m > n) or V's (m < n) leading columns."""
    m, n = a.shape[-2:]
    k = min(m, n)
    if full:
        u, _, vt = np.linalg.svd(a)
        w = u[..., :, k:] if m > n else MT(vt[..., k:, :])
        return w @ MT(w)
    u, _, vt = np.linalg.svd(a, full_matrices=False)
    w = u if m > n else MT(vt)
    return np.eye(max(m, n)) - w @ MT(w)


@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_values_are_numpys(shape):
    a = matrix(shape)
    want = np.linalg.svd(a)
    seen = []
    dvlad.gradient_r(lambda x: seen.append(np.linalg.svd(x)) or np.sum(x))(a)
    got = [dvlad.primal(v) for v in seen[0]]
    k = min(shape[-2:])
    np.testing.assert_allclose(got[1], want.S, rtol=1e-13)
    if shape[-2] > shape[-1]:
        np.testing.assert_array_equal(got[0][..., :, k:], want.U[..., :, k:])
    else:
        np.testing.assert_array_equal(got[2][..., k:, :], want.Vh[..., k:, :])
    np.testing.assert_allclose(got[0] * got[1][..., None, :] @ got[2][..., :k, :]
                               if shape[-2] <= shape[-1] else
                               got[0][..., :, :k] * got[1][..., None, :] @ got[2], a, atol=1e-12)


@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_projector_onto_the_complement_matches_the_reduced_formula(shape):
    a = matrix(shape, 1)
    c = matrix(shape[:-2] + (max(shape[-2:]),) * 2, 2)
    full = lambda x: np.sum(complement_projector(x, True) * c)
    reduced = lambda x: np.sum(complement_projector(x, False) * c)
    assert full(a) == pytest.approx(reduced(a), abs=1e-12)
    want = dvlad.gradient_r(reduced)(a)
    np.testing.assert_allclose(dvlad.gradient_r(full)(a), want, atol=1e-10)
    np.testing.assert_allclose(dvlad.gradient_f(full)(a), want, atol=1e-10)
    if len(shape) == 2:
        np.testing.assert_allclose(dvlad.hessian(full)(a), dvlad.hessian(reduced)(a), atol=1e-8)


@pytest.mark.parametrize("shape", [(5, 3), (3, 5)], ids=str)
def test_full_factors_stay_orthonormal_to_second_order(shape):
    a = matrix(shape, 3)
    m, n = shape
    c = matrix((max(m, n),) * 2, 4)

    def defect(x):
        u, _, vt = np.linalg.svd(x)
        w = u if m > n else MT(vt)
        return np.sum((MT(w) @ w - np.eye(max(m, n))) * c)
    assert dvlad.gradient_r(defect)(a) == pytest.approx(np.zeros(shape), abs=1e-12)
    assert dvlad.hessian(defect)(a) == pytest.approx(np.zeros(shape * 2), abs=1e-10)


@pytest.mark.parametrize("shape", [(5, 3), (3, 5)], ids=str)
def test_check_grads(shape):
    a = matrix(shape, 5)
    c = matrix((max(shape),) * 2, 6)
    dvlad.check_grads(lambda x: np.sum(complement_projector(x, True) * c), a, order=2)
    dvlad.check_grads(lambda x: np.sum(np.linalg.svd(x)[1] ** 3), a, order=2)


@pytest.mark.parametrize("shape", [(5, 3), (6, 2), (2, 4, 3)], ids=str)
def test_qr_complete(shape):
    a = matrix(shape, 7)
    m, n = shape[-2:]
    q_np, r_np = np.linalg.qr(a, "complete")
    seen = []
    dvlad.gradient_r(lambda x: seen.append(np.linalg.qr(x, "complete")) or np.sum(x))(a)
    q, r = (dvlad.primal(v) for v in seen[0])
    np.testing.assert_array_equal(q[..., :, n:], q_np[..., :, n:])
    np.testing.assert_allclose(q @ r, a, atol=1e-12)
    assert np.all(r[..., n:, :] == 0)
    c = matrix(shape[:-2] + (m, m), 8)
    full = lambda x: np.sum(np.linalg.qr(x, "complete")[0][..., :, n:] @ MT(
        np.linalg.qr(x, "complete")[0][..., :, n:]) * c)
    reduced = lambda x: np.sum((np.eye(m) - np.linalg.qr(x)[0] @ MT(np.linalg.qr(x)[0])) * c)
    np.testing.assert_allclose(dvlad.gradient_r(full)(a), dvlad.gradient_r(reduced)(a), atol=1e-10)
    np.testing.assert_allclose(dvlad.gradient_f(full)(a), dvlad.gradient_r(reduced)(a), atol=1e-10)
    if len(shape) == 2:
        dvlad.check_grads(lambda x: np.sum(np.linalg.qr(x, "complete")[0] * np.linalg.qr(
            x, "complete")[0] * c[:, :1]), a, order=2)
