"""``python -m privcut``: the same as the ``privcut`` command."""

from privcut.cli import console

console()
