"""The only package with SQL, in four rooms: ``db`` (where the server is, the pool, migrations, rows
by column name, planner statistics and an agent's own indexes), ``tables`` (one module per table
group; ``tables.deletes`` owns every path that deletes units), ``linking`` (the graph's links,
built at put time and read back) and ``reads`` (recall's candidates, a put's context, graph
pictures). Functions take a connection explicitly and map rows to the records of
``fleet_memory.model``."""

from .db.database import Database
from .tables.filters import UnitFilter

__all__ = ["Database", "UnitFilter"]
