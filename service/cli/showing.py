"""`batayo settings`: the settings in force, where each came from, and the docs' table."""

from __future__ import annotations

import click


@click.command()
@click.option("--markdown", is_flag=True, help="Print the docs' table (docs/settings.md).")
def settings(markdown: bool) -> None:
    """Print every setting's effective value (passwords masked) and where it came from: the
    environment or the default. A value that does not fit is refused, as at start."""
    from rich.console import Console
    from rich.table import Table

    from .. import settings as declared

    if markdown:
        click.echo(declared.markdown(), nl=False)
        return
    try:
        values = declared.current()
    except declared.SettingsError as exc:
        raise click.ClickException(str(exc)) from None
    table = Table("variable", "value", "from")
    for row in declared.described(values):
        table.add_row(row.env, row.value, row.source)
    Console(width=120).print(table)
