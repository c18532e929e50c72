"""``python -m border_py``: the ``border-py`` command (`border_py.run.cli`)."""

import sys

from border_py.run.cli import main

sys.exit(main())
