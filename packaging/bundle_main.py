"""The bundle's entry point: ``pressroom`` alone (or with files) opens the window; with a command, the CLI."""

import sys

from app.cli import main

if __name__ == "__main__":
    sys.exit(main())
