"""The saddle program of examples2009 with dvlad: argmin over (x1, y1) of max over (x2, y2) of
(x1² + y1²) − (x2² + y2²), both from (1, 1); every coordinate should be 8.246324826140356e-06.

Run:  python examples/saddle.py [--mode FF|FR|RF|RR] [--all] [--hand]
      (X = the outer gradient's mode, Y = the inner one's; the default is the fastest mode.
      nested_optimization.py holds the program and explains it.)
"""
import sys

from nested_optimization import run_command_line

if __name__ == "__main__":
    sys.exit(run_command_line("saddle"))
