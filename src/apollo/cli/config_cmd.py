"""``apollo config``: the merged configuration and where each value came from."""

from __future__ import annotations

import typer

from apollo.cli.common import JsonOpt, LangOpt, QuietOpt, StateDirOpt, VerboseOpt, WorkspaceOpt, make_env, run

app = typer.Typer(help="Show Apollo's configuration.", no_args_is_help=True)


@app.command("show")
def show(workspace: WorkspaceOpt = None, state_dir: StateDirOpt = None, json_out: JsonOpt = False,
         lang: LangOpt = None, quiet: QuietOpt = False, verbose: VerboseOpt = False) -> None:
    """Print the merged configuration: defaults, then your file, then the workspace's.

    The table lists every key, its value and where it came from; -q leaves out the line naming
    the files. With --json: {"layers", "values", "sources"}.
    """

    def body() -> None:
        from apollo.config import user_config_path, workspace_config_path

        env = make_env(workspace=workspace, state_dir=state_dir, json_out=json_out, lang=lang, quiet=quiet,
                       verbose=verbose)
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

    run(body, verbose=verbose)
