"""``python -m bench`` (``make bench``)."""

from bench.run import main

raise SystemExit(main())
