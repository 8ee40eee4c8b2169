"""dvlad.compile: record a derivative once, replay it as straight-line code (notes/compile.md).

traced.py   the traced numbers and the trace they write       watch.py  calls a replay would skip
captures.py what F reads besides its arguments, checked       codegen.py / reroll.py  the source
api.py      compile() and the compiled function: kinds, guards, fallbacks, explain()
"""
from .api import Compiled, NotCompiledError, compile
from .traced import TraceLeakError

__all__ = ["compile", "Compiled", "NotCompiledError", "TraceLeakError"]
