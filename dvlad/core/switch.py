"""The one seam for speed: ``DVLAD_REFERENCE=1`` in the environment, read once at import, turns every
fast path off and leaves the plain path that the rule table drives.

With ``REFERENCE`` True: the primitives are the general lift alone (no generated float twins), Taylor
towers use their recurrences without the generated float kernels, no array memory is pooled, the
gradient operators walk every input as a structure (no flat-list shortcut), nested forward mode
takes the general lift, the reverse sweep takes its general step for every cell, and array
partials are never multiplied into their own memory.  The test suite runs both ways (.ci/run), and
tests/test_reference.py checks that the two paths agree.
"""
import os

#: True when the fast paths are off (``DVLAD_REFERENCE=1``); shown as ``dvlad.REFERENCE``.
REFERENCE = os.environ.get("DVLAD_REFERENCE", "") not in ("", "0")
