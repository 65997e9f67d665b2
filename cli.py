"""cartoscore command line (typer). Contract: shared/CLI.md."""

from __future__ import annotations

import typer

app = typer.Typer(add_completion=False, no_args_is_help=True, help=__doc__)


def main() -> None:
    """Console entry point."""
    app()


if __name__ == "__main__":
    main()
