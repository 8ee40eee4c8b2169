"""python -m dvlad: a guided tour, each step printed with its result."""
import sys


def main(argv=None):
    from dvlad.teaching.tour import run
    return run(sys.argv[1:] if argv is None else argv)


if __name__ == "__main__":
    sys.exit(main())
