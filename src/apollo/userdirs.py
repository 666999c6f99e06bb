"""The user's folders for Apollo's configuration and cache, as platformdirs names them.

On Linux that is the XDG rule (``$XDG_CONFIG_HOME`` or ``~/.config``; ``$XDG_CACHE_HOME`` or
``~/.cache``), which is all platformdirs does there; applied here directly because importing
platformdirs (it loads tempfile and shutil) costs the heartbeat, which runs every 30 minutes,
10 ms. Elsewhere platformdirs decides. ``tests/test_userdirs.py`` checks both agree.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

_XDG = {"config": ("XDG_CONFIG_HOME", "~/.config"), "cache": ("XDG_CACHE_HOME", "~/.cache")}


def user_dir(kind: str) -> Path:
    """Apollo's ``"config"`` or ``"cache"`` folder for this user."""
    if sys.platform.startswith("linux"):
        variable, default = _XDG[kind]
        return Path(os.environ.get(variable, "").strip() or os.path.expanduser(default)) / "apollo"
    import platformdirs

    return Path(platformdirs.user_config_dir("apollo") if kind == "config" else platformdirs.user_cache_dir("apollo"))
