"""``python -m app.gui [FILE...]``: the window (what the ``pressroom-gui`` launcher runs)."""

import sys

from app.gui import main

sys.exit(main())
