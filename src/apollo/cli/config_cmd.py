"""``apollo config``: the merged configuration and where each value came from."""

from __future__ import annotations

import typer

from apollo.cli.common import Shared, with_env

app = typer.Typer(help="Show Apollo's configuration.", no_args_is_help=True)


@app.command("show")
@with_env
def show(shared: Shared) -> None:
    """Print the merged configuration: defaults, then your file, then the workspace's.

    The table lists every key, its value and where it came from; -q leaves out the line naming
    the files. With --json: {"layers", "values", "sources"}.
    """
    from apollo.config import user_config_path, workspace_config_path

    env = shared.env()
    rows = env.config.flat()
    if env.json:
        env.emit({
            "layers": [str(user_config_path()), str(workspace_config_path(env.workspace))],
            "values": env.config.values,
            "sources": {key: source for key, _, source in rows},
        })
        return
    from rich.console import Console
    from rich.table import Table

    table = Table(title="apollo config", show_lines=False)
    table.add_column("key")
    table.add_column("value")
    table.add_column("from")
    for key, value, source in rows:
        table.add_row(key, repr(value), source)
    Console().print(table)
    layers = "配置层：默认值" if env.lang == "zh" else "layers: defaults"
    env.info(f"{layers} → {user_config_path()} → {workspace_config_path(env.workspace)}")
