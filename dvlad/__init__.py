"""dvlad: nested forward and reverse automatic differentiation without perturbation confusion.

>>> import dvlad as ad
>>> ad.derivative(lambda x: x * ad.derivative(lambda y: x + y)(1.0))(1.0)
1.0
"""
from . import (
                   arrays,
                   naive,
                   protocol,  # noqa: F401  (installs numpy's protocols on bundles and tape cells)
)
from .api import derivative, directional_derivative, gradient_r, jvp, primal, vjp
from .bundle import Bundle
from .custom import primitive, vector_primitive
from .fixed_point import fixed_point, root
from .graph import GraphvizMissingError, tape_graph, tape_text
from .matrices import gradient_f, hessian, hvp, jacobian_f, jacobian_r
from .ops import (
                   abs,
                   acos,
                   add,
                   asin,
                   atan,
                   atan2,
                   ceil,
                   cos,
                   cosh,
                   div,
                   exp,
                   expm1,
                   floor,
                   floordiv,
                   hypot,
                   int,
                   log,
                   log1p,
                   maximum,
                   minimum,
                   mod,
                   mul,
                   neg,
                   pow,
                   reciprocal,
                   round,
                   sign,
                   sin,
                   sinh,
                   sqrt,
                   square,
                   sub,
                   tan,
                   tanh,
                   trunc,
)
from .taylor import derivatives, directional_derivatives, nth_derivative, taylor
from .tags import (
                   DvladError,
                   FixedPointError,
                   NotDifferentiableError,
                   PerturbedConversionError,
                   TagOrderError,
)
from .tape import LinearMap, TapeCell
from .tower import Tower
from .testing import check_grads

__version__ = "0.1.0"

__all__ = [
    "derivative", "directional_derivative", "gradient_f", "gradient_r", "hessian", "hvp",
    "jacobian_f", "jacobian_r", "jvp", "primal", "vjp", "fixed_point", "root",
    "taylor", "derivatives", "nth_derivative", "directional_derivatives",
    "primitive", "vector_primitive", "check_grads",
    "abs", "acos", "add", "asin", "atan", "atan2", "ceil", "cos", "cosh", "div", "exp", "expm1",
    "floor", "floordiv", "hypot", "int", "log", "log1p", "maximum", "minimum", "mod", "mul",
    "neg", "pow", "reciprocal", "round", "square",
    "sign", "sin", "sinh", "sqrt", "sub", "tan", "tanh", "trunc",
    "Bundle", "TapeCell", "Tower", "LinearMap", "arrays", "naive", "tape_graph", "tape_text",
    "DvladError", "NotDifferentiableError", "PerturbedConversionError", "TagOrderError",
    "GraphvizMissingError", "FixedPointError",
]
