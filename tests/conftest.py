"""Test-wide settings: hypothesis without its per-example deadline.

Speed is measured in ``benchmarks/``, never in tests; hypothesis's default 200 ms
deadline turned a loaded CI machine into failures of correct code.
"""

from hypothesis import settings

settings.register_profile("privcut", deadline=None)
settings.load_profile("privcut")
