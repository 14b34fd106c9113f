"""A design space: names mapped to lists of values, and the points of their product."""
from __future__ import annotations

import ast
import itertools

from ..errors import SimtError


class SweepError(SimtError, ValueError):
    """A sweep asked for something it cannot do: a malformed space, an unknown architecture,
    a setup that cannot be sent to worker processes, a backend that is not installed."""


# columns every row has; a space name may not take one of them
RESERVED = ("arch", "cycles", "time_us", "limiter", "error", "wall_s")


def points(space: dict) -> list[dict]:
    """Every point of ``space``'s product, the last name varying fastest (as nested loops
    written in the space's order would run)."""
    if not isinstance(space, dict) or not space:
        raise SweepError(f"a sweep's space maps parameter names to lists of values, such as "
                         f"{{'block_dim': [64, 128, 256]}}; got {space!r}")
    values = []
    for name, options in space.items():
        if not isinstance(name, str) or not name.isidentifier():
            raise SweepError(f"space name {name!r} is not a Python identifier; setup(**point) "
                             f"receives each name as a keyword argument")
        if name in RESERVED:
            raise SweepError(f"space name {name!r} is a column of the sweep's table "
                             f"({', '.join(RESERVED)}); rename the parameter")
        if isinstance(options, (str, bytes, dict)) or not hasattr(options, "__iter__"):
            raise SweepError(f"space[{name!r}] must be a list of values, got {options!r}")
        options = list(options)
        if not options:
            raise SweepError(f"space[{name!r}] is empty: the sweep would have no points")
        values.append(options)
    names = list(space)
    return [dict(zip(names, combo)) for combo in itertools.product(*values)]


def parse_values(text: str) -> list:
    """``64,128,256`` -> [64, 128, 256]; ``(8,32),(16,16)`` -> two tuples; words stay strings
    (``row,col`` -> ['row', 'col']). The command line's ``--param name=v1,v2`` values."""
    try:
        parsed = ast.literal_eval(f"[{text}]")
        if isinstance(parsed, list) and parsed:
            return parsed
    except (ValueError, SyntaxError):
        pass
    out = []
    for item in text.split(","):
        item = item.strip()
        if not item:
            raise SweepError(f"empty value in {text!r}")
        try:
            out.append(ast.literal_eval(item))
        except (ValueError, SyntaxError):
            out.append(item)
    return out


def parse_param(text: str) -> tuple[str, list]:
    """``name=v1,v2,...`` -> (name, values)."""
    name, sep, values = text.partition("=")
    name = name.strip()
    if not sep or not name or not values.strip():
        raise SweepError(f"--param takes name=v1,v2,..., got {text!r}")
    return name, parse_values(values)
