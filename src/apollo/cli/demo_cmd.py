"""``apollo demo``: Apollo's main job on a fresh copy of the bundled example workspace."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from apollo.cli.common import JsonOpt, LangOpt, QuietOpt, VerboseOpt, run


def register(app: typer.Typer) -> None:
    @app.command("demo")
    def demo(
        examples: Annotated[Path | None, typer.Option("--examples", help="Folder with make_examples.py.")] = None,
        dest: Annotated[Path | None, typer.Option("--dest", help="Build the example here [default: a new temp folder].")] = None,
        lang: LangOpt = None,
        json_out: JsonOpt = False,
        quiet: QuietOpt = False,
        verbose: VerboseOpt = False,
    ) -> None:
        """Copy the example workspace to a temporary folder and run renal and autophagy on it.

        Never touches your real ~/.openclaw: everything happens in the new folder, with the
        clock fixed at the example's date so the output is the same every day. -q leaves out each
        step's output and prints where the results are. There is no --workspace: the demo makes its
        own (--dest chooses where).
        """

        def body() -> None:
            from apollo import demo as demo_mod

            chosen = lang or "zh"

            def show(step: demo_mod.DemoStep) -> None:
                if json_out or quiet:
                    return
                print(f"\n━━ {step.title}\n$ apollo {' '.join(step.args)}")
                print(step.output)

            if dest is not None and dest.exists() and any(dest.iterdir()):
                from apollo.errors import UsageError

                raise UsageError("the demo folder is not empty", where=str(dest), hint="choose a new --dest")
            result = demo_mod.run_demo(examples=examples, dest=dest, lang=chosen, on_step=show)
            if json_out:
                import json

                print(json.dumps({"root": str(result.root), "ok": result.ok, "steps": [
                    {"title": s.title, "args": s.args, "returncode": s.returncode, "output": s.output}
                    for s in result.steps]}, ensure_ascii=False, indent=2))
                if not result.ok:
                    raise typer.Exit(1)
                return
            print(f"Demo folder: {result.root}" if quiet else f"\nDemo folder: {result.root}")
            if not quiet:
                print(f"  workspace: {result.workspace}\n  state dir: {result.state_dir}")
                print("  look at: .renal/filter-state.json, .renal/snapshots/, .autophagy/cleanup-log.md, "
                      ".autophagy/snapshots/ inside the workspace")
            failed = [step for step in result.steps if not step.ok]
            if failed:
                from apollo.errors import ApolloError

                names = ", ".join(f"'apollo {' '.join(s.args[:2])}' (exit {s.returncode})" for s in failed)
                raise ApolloError(f"demo steps failed: {names}", hint="run it without -q to see their output" if quiet else "see their output above")

        run(body, verbose=verbose)
