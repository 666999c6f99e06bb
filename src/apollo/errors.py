"""Errors that carry the CLI exit code, so library and CLI agree on what went wrong.

Exit codes (everywhere): 0 done, 1 error, 2 usage, 3 confirmation required (nothing
changed), 4 refused (permission, protected path, lock held).
"""

from __future__ import annotations

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_USAGE = 2
EXIT_CONFIRM = 3
EXIT_REFUSED = 4


class ApolloError(Exception):
    """A failure the user can act on: what went wrong, where, and what to do."""

    exit_code = EXIT_ERROR

    def __init__(self, what: str, *, where: str | None = None, hint: str | None = None):
        super().__init__(what)
        self.what = what
        self.where = where
        self.hint = hint

    def line(self) -> str:
        """The one line the CLI prints."""
        parts = [self.what]
        if self.where:
            parts[0] = f"{self.where}: {self.what}"
        if self.hint:
            parts.append(self.hint)
        return " — ".join(parts)


class UsageError(ApolloError):
    exit_code = EXIT_USAGE


class ConfigError(ApolloError):
    """A configuration file that cannot be used; names the file, line and key."""


class ConfirmationRequired(ApolloError):
    """Nothing was changed because the user has not confirmed yet."""

    exit_code = EXIT_CONFIRM


class Refused(ApolloError):
    """Not allowed: permission, protected path, lock held, wrong actor."""

    exit_code = EXIT_REFUSED


class InputError(ApolloError):
    """Input that cannot be read at all (a file that is not a transcript, a missing path)."""


def failure_line(exc: BaseException) -> tuple[str, int]:
    """The one line and exit code every entry point prints for a failure (never a traceback).

    Shared by the typer CLI and the heartbeat's fast path so both fail the same way.
    """
    if isinstance(exc, ApolloError):
        return f"apollo: {exc.line()}", exc.exit_code
    if isinstance(exc, KeyboardInterrupt):
        return "apollo: interrupted; nothing further was changed", 130
    if isinstance(exc, OSError):
        where = f"{exc.filename}: " if exc.filename else ""
        return f"apollo: {where}{exc.strerror or exc}", EXIT_ERROR
    return f"apollo: internal error: {type(exc).__name__}: {exc} (rerun with -v for details)", EXIT_ERROR


def discard_stdout() -> None:
    """After a broken pipe (``apollo … | head``): the reader has what it wanted, so point stdout
    at /dev/null to let the interpreter exit without a second error."""
    import os
    import sys

    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
