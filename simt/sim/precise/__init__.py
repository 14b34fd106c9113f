from .engine import run

__all__ = ["run"]
