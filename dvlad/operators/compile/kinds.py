"""The kind of a trace's arguments as the compiled function's entry tests it, inline."""
import numpy as np


def kind_tests(names, kinds):
    """Tests that arguments ``names`` are of this trace's kind (``kinds``: for each, None for a
    float or an array's (shape, dtype, strides, writeable); None: all floats)."""
    if kinds is None:
        return [f"type({v}) is float" for v in names]
    out, arrays = [], []
    for v, k in zip(names, kinds):
        if k is None:
            out.append(f"type({v}) is float")
        else:
            shape, dtype, strides, writeable = k
            out.append(f"type({v}) is _ndarray and {v}.shape == {shape!r} and "
                       f"{v}.strides == {strides!r} and {v}.dtype.str == {dtype!r} and "
                       f"{v}.flags.writeable is {writeable!r}")
            arrays.append(v)
    if len(arrays) > 1:
        out.append(f"_apart({', '.join(arrays)})")
    return out


def apart(*arrays):
    """No two of the arrays share memory (np.may_share_memory: their bounds are apart)."""
    return not any(np.may_share_memory(a, b) for k, a in enumerate(arrays)
                   for b in arrays[:k])
