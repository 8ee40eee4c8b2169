"""The guided tour behind ``python -m dvlad``: numbered sections, each printing the code it runs,
its result, and one sentence of why.

    python -m dvlad               every section
    python -m dvlad --list        the numbered list of sections
    python -m dvlad 3             section 3 (or by name: python -m dvlad confusion)
    python -m dvlad 3-5           sections 3 to 5; "4-" is from 4 to the end
    python -m dvlad --step        one section at a time, Enter for the next, q to stop
"""
import argparse
import sys

from . import tour_basics, tour_more      # noqa: F401  (they register the sections, in order)
from .lesson import SECTIONS, say, why

__all__ = ["SECTIONS", "run"]


def _list():
    width = max(len(s.name) for s in SECTIONS)
    lines = [f"{k:>3}  {s.name:<{width}}  {s.title}" for k, s in enumerate(SECTIONS, 1)]
    return "\n".join(lines)


def _choose(words, parser):
    """The sections the words name, in tour order: numbers (1-based), ranges "3-5" and "4-",
    and names."""
    names = [s.name for s in SECTIONS]
    chosen, unknown = set(), []
    for word in words:
        lo, dash, hi = word.partition("-")
        if word in names:
            chosen.add(names.index(word))
        elif lo.isdigit() and (not dash or not hi or hi.isdigit()) and \
                1 <= int(lo) <= len(SECTIONS) and (not hi or int(lo) <= int(hi) <= len(SECTIONS)):
            last = int(hi) if hi else (len(SECTIONS) if dash else int(lo))
            chosen.update(range(int(lo) - 1, last))
        else:
            unknown.append(word)
    if unknown:
        parser.error(f"unknown section {', '.join(unknown)}; give a number from 1 to "
                     f"{len(SECTIONS)}, a range such as 3-5, or a name:\n{_list()}")
    return sorted(chosen)


def _pause(next_k):
    """Wait for Enter before section next_k; False if the student typed q.  At the end of the
    input (a pipe, /dev/null) the tour goes on without pausing."""
    try:
        answer = input(f"\n  -- Enter: section {next_k}, q: stop -- ")
    except EOFError:
        print()
        return True
    return answer.strip().lower() not in ("q", "quit")


def run(argv):
    """Run the tour as ``python -m dvlad`` would with these arguments; the exit status."""
    parser = argparse.ArgumentParser(
        prog="python -m dvlad", formatter_class=argparse.RawDescriptionHelpFormatter,
        description="A guided tour of dvlad, a section at a time.",
        epilog="sections:\n" + _list())
    parser.add_argument("sections", nargs="*", metavar="N",
                        help="sections to run, by number (3), range (3-5, 4-) or name")
    parser.add_argument("--list", action="store_true", help="list the sections and stop")
    parser.add_argument("--step", action="store_true",
                        help="pause for Enter between sections (q stops)")
    args = parser.parse_args(argv)
    if args.list:
        print(_list())
        return 0
    chosen = _choose(args.sections, parser) if args.sections else range(len(SECTIONS))
    for done, k in enumerate(chosen):
        if args.step and done and not _pause(k + 1):
            break
        s = SECTIONS[k]
        print(f"\n[{k + 1}/{len(SECTIONS)}] {s.title}  ({s.name})")
        say("Why: " + why(s.run))
        print()
        s.run()
        sys.stdout.flush()
    last = chosen[-1] if chosen else -1
    if len(chosen) < len(SECTIONS) and last + 1 < len(SECTIONS):
        nxt = SECTIONS[last + 1]
        print(f"\nNext: python -m dvlad {last + 2}  ({nxt.title}); all sections: "
              f"python -m dvlad --list")
    print("\nMore: README.md, notes/perturbation-confusion.md, notes/how-it-works.md, "
          "examples/teaching.py (a notebook).")
    return 0
