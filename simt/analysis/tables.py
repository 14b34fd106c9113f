"""Per-instruction partial tables: how every analysis works chunk by chunk.

An analysis first reduces each chunk to one row per instruction (``pc``) of sums, maxima
and minima; partials from several chunks combine by the same reductions; views per source
line aggregate the per-pc rows. Nothing here holds more than one chunk of records.
"""
from __future__ import annotations

import re

import numpy as np
import pandas as pd


ATTRIBUTES = ("op", "line", "col")   # constant per pc: taken from its first record


def per_pc(frame: pd.DataFrame, rows: np.ndarray, sums: dict | None = None,
           maxima: dict | None = None, minima: dict | None = None) -> pd.DataFrame:
    """One row per pc among ``frame``'s ``rows`` (positions), indexed by pc.

    ``sums``/``maxima``/``minima`` map an output column to per-row int values (aligned with
    ``rows``), or to an (n, k) array that becomes k columns ``name0..name{k-1}``.
    """
    codes, names = pd.factorize(frame["pc"].array[rows])   # categorical codes: no strings
    known = codes >= 0                                      # records without a pc are left out
    if not known.all():
        def pick(table):
            return {k: np.asarray(v)[known] for k, v in (table or {}).items()}
        rows, codes = rows[known], codes[known]
        sums, maxima, minima = pick(sums), pick(maxima), pick(minima)
    n = len(names)
    first = np.full(n, len(codes), dtype=np.int64)
    np.minimum.at(first, codes, np.arange(len(codes)))
    out = {"executions": np.bincount(codes, minlength=n).astype(np.int64)}
    for column in ATTRIBUTES:
        values = frame[column].iloc[rows[first]] if n else frame[column].iloc[:0]
        out[column] = values.to_numpy(dtype=object)
    for table, ufunc, start in ((sums, np.add, 0), (maxima, np.maximum, np.iinfo(np.int64).min),
                                (minima, np.minimum, np.iinfo(np.int64).max)):
        for name, values in (table or {}).items():
            values = np.asarray(values, dtype=np.int64)
            if values.ndim == 1:
                acc = np.full(n, start, dtype=np.int64)
                ufunc.at(acc, codes, values)
                out[name] = acc
            else:
                acc = np.full((n, values.shape[1]), start, dtype=np.int64)
                ufunc.at(acc, codes, values)
                for k in range(values.shape[1]):
                    out[f"{name}{k}"] = acc[:, k]
    index = pd.Index(np.asarray(names, dtype=object), name="pc")
    return pd.DataFrame(out, index=index)


def combine(partials: list[pd.DataFrame], maxima: tuple = (), minima: tuple = ()) -> pd.DataFrame:
    """Merge per-pc partials of several chunks: attributes first, ``maxima``/``minima`` by
    max/min, every other column summed."""
    partials = [p for p in partials if len(p)]
    if not partials:
        return pd.DataFrame(columns=["executions", *ATTRIBUTES]).rename_axis("pc")
    if len(partials) == 1:
        return partials[0]
    both = pd.concat(partials)
    rules = {c: ("first" if c in ATTRIBUTES else "max" if c in maxima else
                 "min" if c in minima else "sum") for c in both.columns}
    return both.groupby(level="pc", sort=False).agg(rules)


def by_line(table: pd.DataFrame, sums: tuple, maxima: tuple = (), minima: tuple = (),
            keys: tuple = ("line",)) -> pd.DataFrame:
    """Aggregate a per-pc table per source line (and any extra ``keys``)."""
    if table.empty:
        return pd.DataFrame(columns=[*keys, "instructions", *sums, *maxima, *minima])
    t = table.reset_index()
    t["line"] = t["line"].astype("Int64")
    rules = {"instructions": ("pc", "size")}
    rules.update({c: (c, "sum") for c in sums})
    rules.update({c: (c, "max") for c in maxima})
    rules.update({c: (c, "min") for c in minima})
    return t.groupby(list(keys), dropna=False, sort=True).agg(**rules).reset_index()


def pc_sort_key(pc) -> tuple:
    """``"body0:46"`` -> ("body", 0, 46): pcs sort by block label, then by the label's number
    and the instruction's index as numbers (so ``body0:46`` comes before ``body0:106``)."""
    label, _, index = str(pc).rpartition(":")
    m = _LABEL.match(label)
    stem, number = (m.group(1), int(m.group(2))) if m else (label, -1)
    return stem, number, int(index) if index.isdigit() else -1


_LABEL = re.compile(r"^(.*?)(\d+)$")


def order_by_source(table: pd.DataFrame) -> pd.DataFrame:
    """Sort a per-pc table by source line and column, then pc (numbers as numbers)."""
    if table.empty:
        return table.reset_index()
    t = table.reset_index()
    keys = [pc_sort_key(pc) for pc in t["pc"]]
    key = pd.DataFrame({"line": t["line"].astype("Int64"), "col": t["col"].astype("Int64"),
                        "stem": [k[0] for k in keys], "number": [k[1] for k in keys],
                        "index": [k[2] for k in keys]})
    order = key.sort_values(["line", "col", "stem", "number", "index"], na_position="last",
                            kind="stable").index
    return t.iloc[order].reset_index(drop=True)


def space_is(frame: pd.DataFrame, space: str) -> np.ndarray:
    s = frame["space"]
    return np.asarray(s == space, dtype=bool) if len(s) else np.zeros(0, dtype=bool)


def op_kind(op: str) -> str:
    """'ld', 'st' or 'atom' (reductions count as atomics) for a memory op name."""
    head = str(op).split(".", 1)[0]
    return {"red": "atom"}.get(head, head)

