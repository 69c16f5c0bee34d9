"""Alembic, driven from code: `dicecall serve` and the lifespan run `upgrade head`.

No alembic.ini is needed; the script location is this package's `migrations/` folder.
"""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config

MIGRATIONS = Path(__file__).with_name("migrations")


def alembic_config(url: str) -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    # ConfigParser interpolation would choke on a "%" in a password.
    cfg.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return cfg


def upgrade(url: str, revision: str = "head") -> None:
    """Brings the database at `url` to `revision` (creates every table on a new one)."""
    command.upgrade(alembic_config(url), revision)
