"""The schema revision this version of the app writes, in a module that imports nothing, so the
quick sqlite3 reader (:mod:`workbench.storage.fast_read`) and the bundle's open
(:mod:`workbench.storage.bundle`) check bundles against one value."""

#: The newest migration in migrations/versions. Opening a bundle already at this revision reads
#: ``alembic_version`` with one query and never imports Alembic (about 0.2 s of a start-up), and
#: the quick reader reads only bundles at it; tests/storage/test_bundle.py checks it against
#: Alembic's own head, so a new migration must move it.
HEAD_REVISION = "0011"
