"""Appending a dated, reproducible section to benchmarks/RESULTS.md."""
import datetime
import os
import platform

import mpmath
import numpy

PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "RESULTS.md")


def append(command, what, columns, rows):
    """A section: the date and the command, the versions, what was measured, then a table
    (``columns`` and ``rows`` of cells, or ``columns`` None and ``rows`` its Markdown lines)."""
    import dvlad
    lines = [f"\n## {datetime.date.today().isoformat()} — `{command}`\n",
             f"Python {platform.python_version()}, numpy {numpy.__version__}, mpmath "
             f"{mpmath.__version__}, dvlad {dvlad.__version__}, {os.cpu_count()} cores "
             f"({platform.machine()}). {what}\n",
             ]
    if columns is None:
        lines += rows
    else:
        lines += ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
        lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    with open(PATH, "a", encoding="utf-8") as fh:
        fh.write("\n".join(lines) + "\n")
    print(f"appended to {PATH}")
