"""`python -m amteach` runs the command line."""

from .cli import main

main()
