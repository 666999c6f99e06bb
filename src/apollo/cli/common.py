"""What every command shares: options, the resolved environment, output, and error handling.

Exit codes: 0 done, 1 error, 2 usage, 3 confirmation required, 4 refused. Errors print one
line (what, where, what to do); ``-v`` adds the traceback.
"""

from __future__ import annotations

import functools
import inspect
import json
import sys
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal, TypeVar

import typer

from apollo.errors import discard_stdout, failure_line

if TYPE_CHECKING:
    from apollo.config import Config
    from apollo.workspace import Paths

T = TypeVar("T")

# file_okay=False: a file given as a folder is a usage error (exit 2) before anything runs
WorkspaceOpt = Annotated[
    Path | None,
    typer.Option("--workspace", "-w", help="OpenClaw workspace \\[default: $OPENCLAW_WORKSPACE_DIR or ~/.openclaw/workspace]",
                 show_default=False, file_okay=False),
]
StateDirOpt = Annotated[
    Path | None,
    typer.Option("--state-dir", help="OpenClaw state dir \\[default: $OPENCLAW_STATE_DIR or ~/.openclaw]", show_default=False,
                 file_okay=False),
]
AgentOpt = Annotated[str, typer.Option("--agent", help="Agent id whose sessions to use.")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Machine-readable JSON on stdout, nothing else.")]
LangOpt = Annotated[
    Literal["zh", "en"] | None,
    typer.Option("--lang", help="Report language: zh or en \\[default: config, else locale, else zh]", show_default=False),
]
QuietOpt = Annotated[bool, typer.Option("--quiet", "-q", help="Print only the essential line.")]
VerboseOpt = Annotated[bool, typer.Option("--verbose", "-v", help="More detail; tracebacks on errors.")]
FormatOpt = Annotated[
    str, typer.Option("--format", "-f", help="Transcript format: auto, openclaw, openclaw-sqlite, claude-code, openai, jsonl, markdown.")
]


@dataclass
class Env:
    """The resolved environment of one command: paths, config, language and output mode."""

    paths: Paths
    config: Config
    lang: str
    json: bool = False
    quiet: bool = False
    verbose: bool = False

    @property
    def workspace(self) -> Path:
        return self.paths.workspace

    def out(self, text: str = "") -> None:
        """Human output; suppressed in --json mode so stdout stays machine-readable."""
        if not self.json:
            print(text)

    def info(self, text: str) -> None:
        """Secondary human output: hidden by -q and by --json."""
        if not self.json and not self.quiet:
            print(text)

    def emit(self, data: Any) -> None:
        """The JSON document of a --json run."""
        print(json.dumps(data, ensure_ascii=False, indent=2, default=str))


def make_env(*, workspace: Path | None = None, state_dir: Path | None = None, agent: str | None = None,
             json_out: bool = False, lang: str | None = None, quiet: bool = False, verbose: bool = False) -> Env:
    from apollo import config as config_mod
    from apollo.workspace import Paths, resolve_lang

    paths = Paths.resolve(workspace, state_dir, agent)
    config = config_mod.load(paths.workspace)
    return Env(paths, config, resolve_lang(lang, config), json_out, quiet, verbose)


def warn(text: str) -> None:
    print(text, file=sys.stderr)


def run(action: Callable[[], T], *, verbose: bool = False) -> T:
    """Run a command body; turn every failure into one clear line and the right exit code."""
    try:
        return action()
    except typer.Exit:
        raise
    except BrokenPipeError:  # `apollo … | head`: the reader has what it wanted
        discard_stdout()
        raise typer.Exit(0) from None
    except (Exception, KeyboardInterrupt) as exc:  # noqa: BLE001 - one line, never a traceback unless -v
        if verbose:
            traceback.print_exc()
        line, code = failure_line(exc)
        print(line, file=sys.stderr)
        raise typer.Exit(code) from None


#: the options every command over a workspace takes: parameter name -> (option, default)
SHARED_OPTIONS: dict[str, tuple[Any, Any]] = {
    "workspace": (WorkspaceOpt, None), "state_dir": (StateDirOpt, None), "agent": (AgentOpt, "main"),
    "json_out": (JsonOpt, False), "lang": (LangOpt, None), "quiet": (QuietOpt, False),
    "verbose": (VerboseOpt, False),
}


class Shared:
    """The shared options of one run. :meth:`env` resolves them (paths, config, language) when the
    command first needs them, so a usage error it finds first is reported before the config is read."""

    def __init__(self, values: dict[str, Any]):
        self.values = values
        #: the options as given (None when not given), for a command that asks what was named
        self.workspace: Path | None = values["workspace"]
        self.lang: str | None = values["lang"]
        self.verbose = bool(values["verbose"])
        self._env: Env | None = None

    def env(self) -> Env:
        if self._env is None:
            self._env = make_env(**self.values)
        return self._env


def with_env(command: Callable[..., None]) -> Callable[..., None]:
    """A command body ``command(shared, <its own options>)`` becomes a command with the shared
    options added (:data:`SHARED_OPTIONS`, listed after its own) and run through :func:`run`:
    every failure one line and its exit code."""
    signature = inspect.signature(command, eval_str=True)
    own = [p for p in signature.parameters.values() if p.name != "shared"]
    added = [inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=option)
             for name, (option, default) in SHARED_OPTIONS.items()]

    @functools.wraps(command)
    def wrapper(**values: Any) -> None:
        shared = Shared({name: values.pop(name) for name in SHARED_OPTIONS})
        run(lambda: command(shared, **values), verbose=shared.verbose)

    parameters = [*own, *added]
    wrapper.__signature__ = signature.replace(parameters=parameters)  # type: ignore[attr-defined]
    wrapper.__annotations__ = {p.name: p.annotation for p in parameters}
    return wrapper
