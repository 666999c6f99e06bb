"""Apollo: context hygiene for AI agents.

Two systems: :mod:`apollo.renal` filters a transcript without destroying anything,
:mod:`apollo.autophagy` removes files and context in confirmed, snapshotted tiers.
"""

__version__ = "0.1.0"
