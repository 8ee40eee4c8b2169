"""numpy's products and selections beyond linalg's (kron, cross, vdot, cumprod, select, ...),
written with dvlad's array primitives.
"""
__all__ = ["FUNCTIONS"]

# numpy function -> dvlad's handler (merged into dvlad.arrays.protocol.FUNCTIONS)
FUNCTIONS = {}
