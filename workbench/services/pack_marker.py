"""The mark of an offline pack: the ``bundle_info`` key its description is stored under. A module
of its own, with no imports, so that ``workbench open`` can ask whether a file is a pack (with
plain sqlite3) before loading the storage stack that :mod:`workbench.services.packs` needs."""

PACK_INFO_KEY = "pack"
