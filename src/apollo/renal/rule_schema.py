"""The shape of a ``[signal.NAME]`` table in a user's renal rule file.

Kept apart from :mod:`apollo.renal.rules` because msgspec (and the typing it loads) costs the
classifier's start-up more than the built-in files are worth checking: it is imported only when
a user's rule file is read.
"""

from __future__ import annotations

import msgspec


class SignalSpec(msgspec.Struct, forbid_unknown_fields=True):
    """What a user may say about a signal; every key is optional (a file may only add phrases)."""

    about: str = ""
    social: bool = False
    answers: bool = False
    anywhere: bool = False
    attached: bool = False
    confirmation: bool = False
    allow_question: bool = False
    agrees: bool = False
    opens: bool = False
    after: list[str] = []
    confidence: float = 0.8
    roles: list[str] = []
    whole: bool = False
    zh: list[str] = []
    en: list[str] = []
    phrases: list[str] = []
    patterns: list[str] = []
