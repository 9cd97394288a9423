"""``python -m pooljudge``: the same command line as the ``pooljudge`` script."""

from pooljudge.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
