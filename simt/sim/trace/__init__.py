"""``cpu:trace``: the precise engine plus a JSON Lines instruction trace (a listener)."""
from .writer import SCHEMA_VERSION, TraceOptions, TraceWriter, run

__all__ = ["SCHEMA_VERSION", "TraceOptions", "TraceWriter", "run"]
