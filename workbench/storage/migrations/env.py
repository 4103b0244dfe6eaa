"""Alembic environment: migrations run on the connection the Bundle hands over (inside its
transaction), never on a URL from an ini file, so the app and the tests migrate exactly the
bundle they opened, on SQLite or PostgreSQL."""

from alembic import context

from workbench.storage.models import Base

config = context.config
connection = config.attributes["connection"]

context.configure(
    connection=connection,
    target_metadata=Base.metadata,
    render_as_batch=connection.dialect.name == "sqlite",
    compare_type=True,
)
with context.begin_transaction():
    context.run_migrations()
