"""The only package with SQL: embedded server, pool, migrations, one module per table group.
Functions take a connection explicitly and map rows to the records of ``fleet_memory.model``."""

from .db.database import Database
from .tables.filters import UnitFilter

__all__ = ["Database", "UnitFilter"]
