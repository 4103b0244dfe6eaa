"""``python -m workbench.cli``: the same as the ``workbench`` command."""

from workbench.cli import console_main

raise SystemExit(console_main())
