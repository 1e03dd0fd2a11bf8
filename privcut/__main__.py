"""``python -m privcut``: the same as the ``privcut`` command."""

import sys

from privcut.cli import main

sys.exit(main())
