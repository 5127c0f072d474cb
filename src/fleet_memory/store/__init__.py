"""The only package with SQL: embedded server, pool, migrations, one module per table group.
Functions take a connection explicitly and map rows to the records of ``fleet_memory.model``."""

from .database import Database
from .filters import UnitFilter

__all__ = ["Database", "UnitFilter"]
