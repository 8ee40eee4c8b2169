"""The particle program of examples2009 with dvlad: the offset w of a charge at (10, 10 − w) that
makes a particle, fired from (0, 8) past it, cross y = 0 at x = 0; w* should be 0.207191874648612.

Run:  python examples/particle.py [--mode FF|FR|RF|RR] [--all] [--hand]
      (X = the outer gradient's mode, over w; Y = the inner one's, for the force −∇p; the default
      is the fastest mode.  nested_optimization.py holds the program and explains it.)
"""
import sys

from nested_optimization import run_command_line

if __name__ == "__main__":
    sys.exit(run_command_line("particle"))
