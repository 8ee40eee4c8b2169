"""dvlad: nested forward and reverse automatic differentiation without perturbation confusion.

>>> import dvlad as ad
>>> ad.derivative(lambda x: x * ad.derivative(lambda y: x + y)(1.0))(1.0)
1.0
"""
from . import arrays  # (importing dvlad.arrays installs numpy's protocols on AD numbers)
from .core import pool  # noqa: F401  (dvlad.pool: the memory dvlad reuses)
from .core.switch import REFERENCE
from .teaching import naive
from .modes.api import (derivative, directional_derivative, gradient_r, jvp, primal,
                        stop_gradient, value_and_gradient_r, vjp)
from .numbers.bundle import Bundle
from .operators.custom import primitive, vector_primitive
from .operators.fixed_point import fixed_point, root
from .teaching.graph import GraphvizMissingError, tape_graph, tape_text
from .operators.matrices import gradient_f, hessian, hvp, jacobian_f, jacobian_r
from .numbers.primitives import (  # the rule table's primitives, one per row
    abs,
    acos,
    add,
    arccosh,
    arcsinh,
    arctanh,
    asin,
    atan,
    atan2,
    beta,
    betainc,
    betaincc,
    betainccinv,
    betaincinv,
    betaln,
    boxcox,
    boxcox1p,
    cbrt,
    ceil,
    chdtr,
    chdtrc,
    chdtri,
    copysign,
    cos,
    cosh,
    cosm1,
    dawsn,
    deg2rad,
    digamma,
    div,
    entr,
    erf,
    erfc,
    erfcinv,
    erfcx,
    erfinv,
    exp,
    exp1,
    exp2,
    expi,
    expit,
    expm1,
    expn,
    floor,
    floordiv,
    fmax,
    fmin,
    fresnel_c,
    fresnel_s,
    gamma,
    gammainc,
    gammaincc,
    gammainccinv,
    gammaincinv,
    gammaln,
    gammasgn,
    hyp1f1,
    hyp2f1,
    hypot,
    i0,
    i0e,
    i1,
    i1e,
    int,
    iv,
    ive,
    j0,
    j1,
    jn,
    kl_div,
    kv,
    kve,
    log,
    log10,
    log1p,
    log2,
    log_expit,
    log_ndtr,
    logaddexp,
    logaddexp2,
    loggamma,
    logit,
    maximum,
    minimum,
    mod,
    mul,
    ndtr,
    ndtri,
    neg,
    owens_t,
    pdtr,
    pdtrc,
    poch,
    polygamma,
    pow,
    rad2deg,
    reciprocal,
    rel_entr,
    rgamma,
    round,
    sici_ci,
    sici_si,
    sign,
    sin,
    sinc,
    sinh,
    spence,
    sqrt,
    square,
    stdtr,
    stdtrit,
    sub,
    tan,
    tanh,
    trunc,
    xlog1py,
    xlogy,
    y0,
    y1,
    yn,
    zeta,
)
from .numbers.outputs import fresnel, sici  # scipy's ufuncs of two outputs: tuples of rows
from .modes.taylor import derivatives, directional_derivatives, nth_derivative, taylor
from .core.tags import (
                   ArgumentError,
                   AssignmentError,
                   DvladError,
                   FixedPointError,
                   IntegrationError,
                   NotDifferentiableError,
                   PerturbedConversionError,
                   StructureMismatchError,
                   TagOrderError,
)
from .numbers.tape import LinearMap, TapeCell
from .numbers.tower import Tower
from .operators.odeint import odeint
from .operators.compile import Compiled, NotCompiledError, TraceLeakError, compile
from .operators.testing import check_grads

__version__ = "0.1.0"

__all__ = [
    "derivative", "directional_derivative", "gradient_f", "gradient_r", "hessian", "hvp",
    "jacobian_f", "jacobian_r", "jvp", "primal", "vjp", "fixed_point", "root", "odeint",
    "value_and_gradient_r", "stop_gradient",
    "taylor", "derivatives", "nth_derivative", "directional_derivatives",
    "primitive", "vector_primitive", "check_grads", "compile", "Compiled",
    "abs", "acos", "add", "asin", "atan", "atan2", "ceil", "cos", "cosh", "div", "exp", "expm1",
    "floor", "floordiv", "hypot", "int", "log", "log1p", "maximum", "minimum", "mod", "mul",
    "neg", "pow", "reciprocal", "round", "square",
    "sign", "sin", "sinh", "sqrt", "sub", "tan", "tanh", "trunc",
    "log2", "log10", "exp2", "arcsinh", "arccosh", "arctanh", "deg2rad", "rad2deg", "logaddexp",
    "logaddexp2", "REFERENCE",
    "erf", "erfc", "erfinv", "erfcinv", "gammaln", "digamma", "polygamma", "expit", "logit",
    "xlogy", "xlog1py", "ndtr", "log_ndtr", "ndtri", "i0", "i1", "iv", "betaln",
    "gamma", "rgamma", "gammasgn", "beta", "j0", "j1", "y0", "y1", "jn", "yn", "ive", "gammainc",
    "gammaincc", "betainc", "stdtr", "pdtr", "poch", "pdtrc", "betaincc", "chdtr", "chdtrc",
    "gammaincinv", "gammainccinv", "chdtri", "stdtrit", "betaincinv", "betainccinv",
    "cbrt", "copysign", "fmax", "fmin", "sinc", "kv", "kve",
    "i0e", "i1e", "erfcx", "log_expit", "cosm1", "entr", "rel_entr", "kl_div", "exp1", "expi", "spence",
    "zeta",
    "boxcox", "boxcox1p", "dawsn", "expn", "hyp1f1", "hyp2f1", "loggamma", "owens_t",
    "fresnel_s", "fresnel_c", "sici_si", "sici_ci", "fresnel", "sici",
    "Bundle", "TapeCell", "Tower", "LinearMap", "arrays", "naive", "tape_graph", "tape_text",
    "DvladError", "NotDifferentiableError", "PerturbedConversionError", "AssignmentError", "TagOrderError",
    "GraphvizMissingError", "NotCompiledError", "TraceLeakError", "FixedPointError", "IntegrationError", "StructureMismatchError", "ArgumentError",
]

# scipy's plain-Python functions (logsumexp, softmax, scipy.stats densities) on dvlad numbers:
# installed in scipy now or when it is imported (dvlad.operators.scipy_functions, scipy_stats)
from .operators import scipy_functions as _scipy_functions, scipy_stats as _scipy_stats
from .operators import scipy_integrate as _scipy_integrate, scipy_optimize as _scipy_optimize
from .operators import scipy_spatial as _scipy_spatial

_scipy_functions.install({"scipy.stats": _scipy_stats.install,
                          "scipy.optimize": _scipy_optimize.install,
                          "scipy.spatial.distance": _scipy_spatial.install,
                          "scipy.integrate": _scipy_integrate.install})
