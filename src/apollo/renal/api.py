"""renal's whole-transcript entry points, above the streaming modules they drive.

The classifier (:mod:`apollo.renal.classify`), the balance tracker (:mod:`apollo.renal.balance`) and
the filter's fates (:mod:`apollo.renal.fates`) each work one element at a time; reading a whole
transcript and running them together lives here, so none of the three needs to import another
that imports it back.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from apollo.renal import classify, fates
from apollo.renal.balance import BalanceTracker, Point, Thresholds
from apollo.renal.classify import Verdict
from apollo.tokens import get_counter
from apollo.transcript import read
from apollo.transcript.model import Transcript

if TYPE_CHECKING:
    from apollo.config import Config


@dataclass(slots=True)
class ClassifyResult:
    verdicts: list[Verdict]
    summary: dict[str, Any]
    transcript: Transcript


def classify_path(path: Path | Any, fmt: str = "auto", config: Config | None = None) -> ClassifyResult:
    """Read a transcript (any supported format, or one session of an OpenClaw SQLite store) and
    classify it. The summary names the format, the token counter and any lines that could not be
    read, and gives the default filter's measure (density, estimated saving: see
    :mod:`apollo.renal.fates`), the same numbers ``apollo renal check`` and ``filter`` report."""
    counter = config.get("general.counter") if config is not None else "estimate"
    source = Path(path) if isinstance(path, str | os.PathLike) else path  # or an apollo.transcript.SessionRef
    transcript = read(source, fmt, counter=counter)
    classification = classify.run(transcript.elements, config)
    stream = fates.FateStream.for_config(config, get_counter(counter)[1],
                                         lang=fates.language_of(transcript.in_context()), retain=False)
    for element, verdict in zip(transcript.elements, classification.verdicts, strict=True):
        stream.feed(element, verdict)
    measure = stream.finish().to_dict()
    summary = {"format": transcript.format, "counter": transcript.meta.get("counter", counter),
               **classification.summary, "removable_tokens": measure["removable_tokens"],
               "density": measure["density"], "estimated_saving": measure["estimated_saving"],
               "warnings": [str(w) for w in transcript.warnings]}
    return ClassifyResult(classification.verdicts, summary, transcript)


def series(elements: Iterable[Any], config: Config | None = None) -> list[Point]:
    """The balance after every user turn of a transcript: the raw count of each sign and the level,
    as the classifier's tracker saw them (the same turns, and the same last point, as its summary)."""
    tracker = BalanceTracker(Thresholds.from_config(config), record=True)
    classifier = classify.Classifier(config, balance=tracker)
    for element in elements:
        classifier.feed(element)
    return tracker.history or []
