"""python -m dvlad: a guided tour, each step printed with its result (python -m dvlad --list)."""
import os
import sys


def main(argv=None):
    from dvlad.teaching.tour import run
    try:
        return run(sys.argv[1:] if argv is None else argv)
    except BrokenPipeError:             # python -m dvlad | head: the reader has seen enough
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    sys.exit(main())
