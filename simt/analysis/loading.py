"""Reading simt traces (JSON Lines, schema 1, optionally gzip) into pandas DataFrames.

One row per warp-level instruction record. Columns, in order: launch, block, warp, pc, op,
line, col, mask, active, cycle, space, width, addr, wavefronts, ideal, sectors, requests,
taken (plus any key a newer writer adds). Integer columns have the smallest numpy type the
format allows (``INT_DTYPES``: ``active`` int8, ``mask`` uint32, ``cycle`` int64, ...), or the
matching pandas nullable type (``Int16``...) where some records lack the key (``width`` on
an ``add``); ``pc``, ``op`` and ``space`` are categoricals; ``addr`` holds, for a memory
instruction, a numpy int64 array of the 32 lanes' byte addresses with -1 for inactive lanes
(``null`` in the file), and None for other instructions. ``columns=[...]`` loads only those
columns (leaving out ``addr`` saves most of the memory). ``df.attrs`` carries the
``header``, the ``end`` trailer (or None), the ``path`` and ``damage`` (None, or what was
dropped from a file cut short: see TraceDamageWarning).

Traces bigger than memory are read in chunks (``iter_trace_chunks``); every analysis in
simt.analysis accepts a path and then works chunk by chunk.
"""
from __future__ import annotations

import json
import os
import warnings
from typing import Iterable, Iterator, Sequence, Union

import numpy as np
import pandas as pd

from ..errors import SimtError
from . import scan
from .tracefile import TraceBytes

SCHEMA = 1
CHUNK_RECORDS = 65536
INT_DTYPES = {"launch": np.int32, "block": np.int32, "warp": np.int16, "line": np.int32,
              "col": np.int32, "mask": np.uint32, "active": np.int8, "cycle": np.int64,
              "width": np.int16, "wavefronts": np.int16, "ideal": np.int16, "sectors": np.int16,
              "requests": np.int16, "taken": np.uint32}
INT_COLUMNS = scan.INT_KEYS
STR_COLUMNS = scan.STR_KEYS
COLUMNS = ("launch", "block", "warp", "pc", "op", "line", "col", "mask", "active", "cycle",
           "space", "width", "addr", "wavefronts", "ideal", "sectors", "requests", "taken")
INACTIVE = scan.INACTIVE

Trace = Union[str, os.PathLike, pd.DataFrame, Iterable[pd.DataFrame]]


class TraceFormatError(SimtError, ValueError):
    """A file that is not a simt trace, is damaged, or has a schema newer than this simt."""


class TraceDamageWarning(UserWarning):
    """A trace cut short (its writer was killed): the whole records before the damage were
    read, the rest dropped; the message says what."""


class FilteredTraceError(SimtError, ValueError):
    """An analysis asked of a trace recorded without the records it needs (``memory_only``)."""


def require_unfiltered(chunk: pd.DataFrame, analysis: str, needs: str) -> None:
    """FilteredTraceError when ``chunk`` comes from a ``memory_only`` trace."""
    header = chunk.attrs.get("header") or {}
    if (header.get("filters") or {}).get("memory_only"):
        where = chunk.attrs.get("path") or "this trace"
        raise FilteredTraceError(
            f"{analysis}: {where} was recorded with trace_options={{'memory_only': True}}, so it "
            f"holds no {needs}; record the launch again without memory_only")


def read_header(path: str | os.PathLike) -> dict:
    """The header record of the trace at ``path`` (validated; see ``TraceFormatError``)."""
    with _open(path) as f:
        return _read_header(f, path)


def iter_trace_chunks(path: str | os.PathLike, chunksize: int = CHUNK_RECORDS,
                      columns: Sequence[str] | None = None) -> Iterator[pd.DataFrame]:
    """DataFrames of at most ``chunksize`` lines' records each, in file order; ``columns``
    keeps only those columns.

    Every chunk's ``attrs`` has the ``header``; the chunk holding the trailer also has ``end``.
    The index continues across chunks (record 0, 1, ...). A file cut short yields its whole
    records, then warns (TraceDamageWarning) saying what was dropped.
    """
    found: dict = {}
    yield from _chunks(path, chunksize, columns, found)
    _warn_damage(path, found)


def load_trace(path: str | os.PathLike, chunksize: int = CHUNK_RECORDS,
               columns: Sequence[str] | None = None) -> pd.DataFrame:
    """The whole trace at ``path`` as one DataFrame (see the module docstring for columns).

    A file cut short (a launch killed while tracing) loads the whole records before the
    damage, warns (TraceDamageWarning) and puts what was dropped in ``attrs["damage"]``."""
    header = read_header(path)
    frames, end, found = [], None, {}
    for frame in _chunks(path, chunksize, columns, found):
        frames.append(frame)
        end = frame.attrs.get("end") or end
    df = concat_frames(frames) if frames else empty_frame(columns)
    df.attrs = {"header": header, "end": end, "path": os.fspath(path),
                "damage": found.get("damage")}
    _warn_damage(path, found)
    return df


def _chunks(path, chunksize: int, columns, found: dict) -> Iterator[pd.DataFrame]:
    if chunksize <= 0:
        raise ValueError(f"chunksize must be positive, got {chunksize}")
    wanted = None if columns is None else _check_columns(columns)
    with _open(path) as f:
        header = _read_header(f, path)
        line_no, first_record = 2, 0
        for block, n_lines in f.line_blocks(chunksize):
            frame, end = _parse_lines(block, path, line_no, header, wanted)
            frame.index = pd.RangeIndex(first_record, first_record + len(frame))
            frame.attrs = {"header": header, "end": end, "path": os.fspath(path)}
            line_no += n_lines
            first_record += len(frame)
            found["records"] = first_record
            found["end"] = end or found.get("end")
            yield frame
        found["damage"] = f.damage
        found.setdefault("records", first_record)


def _warn_damage(path, found: dict) -> None:
    """TraceDamageWarning for a file cut short, or one without a trailer."""
    n = found.get("records", 0)
    if found.get("damage"):
        trailer = "" if found.get("end") else "; it has no trailer (the launch did not finish)"
        message = (f"{os.fspath(path)} was cut short: {found['damage']}{trailer}. Read the {n} "
                   f"whole records before the damage and dropped the rest.")
    elif not found.get("end"):
        message = (f"{os.fspath(path)} has no trailer: the launch did not finish (it raised, or "
                   f"its process was stopped); read the {n} records written before that.")
    else:
        return
    warnings.warn(message, TraceDamageWarning, stacklevel=3)


def _check_columns(columns) -> tuple[str, ...]:
    if isinstance(columns, str) or not all(isinstance(c, str) for c in columns):
        raise TypeError(f"columns must be a list of column names, got {columns!r}")
    return tuple(dict.fromkeys(columns))


# ---------------------------------------------------------------- helpers for the analyses

def chunks_of(trace: Trace) -> Iterator[pd.DataFrame]:
    """A DataFrame as one chunk, a path read chunk by chunk, or an iterable of DataFrames."""
    if isinstance(trace, pd.DataFrame):
        yield trace
    elif isinstance(trace, (str, os.PathLike)):
        yield from iter_trace_chunks(trace)
    else:
        yield from trace


def int_values(frame: pd.DataFrame, column: str, fill: int = 0) -> np.ndarray:
    """A column as int64 numpy, missing values replaced by ``fill``."""
    if column not in frame:
        return np.full(len(frame), fill, dtype=np.int64)
    s = frame[column]
    if isinstance(s.dtype, pd.api.extensions.ExtensionDtype):
        return s.to_numpy(dtype=np.int64, na_value=fill)
    if s.dtype.kind in "iub":
        return np.asarray(s, dtype=np.int64)
    # floats with NaN or objects (a DataFrame built by hand from the JSON records)
    return pd.to_numeric(s, errors="coerce").fillna(fill).to_numpy(dtype=np.int64)


def addr_matrix(addr: pd.Series | Iterable) -> np.ndarray:
    """(n, 32) int64 addresses, -1 for inactive lanes, from arrays or lists (None -> -1)."""
    values = list(addr)
    if not values:
        return np.empty((0, scan.LANES), dtype=np.int64)
    if all(isinstance(v, np.ndarray) and v.shape == (scan.LANES,) for v in values):
        return np.stack(values).astype(np.int64, copy=False)
    return np.stack([address_row(v) for v in values])


def address_row(value) -> np.ndarray:
    """One record's ``addr`` as 32 int64 (-1 for null, missing or absent lanes)."""
    row = np.full(scan.LANES, INACTIVE, dtype=np.int64)
    if value is None or (isinstance(value, float) and np.isnan(value)):
        return row
    for lane, a in enumerate(list(value)[:scan.LANES]):
        if a is not None and a == a:
            row[lane] = int(a)
    return row


def lane_mask(mask: np.ndarray) -> np.ndarray:
    """(n, 32) bool: which lanes each uint32 mask names."""
    return ((np.asarray(mask, dtype=np.int64)[:, None] >> np.arange(scan.LANES)) & 1).astype(bool)


def object_categories(values: pd.Categorical) -> pd.Categorical:
    """The same categorical with plain-object categories (one category dtype for every chunk,
    whatever string dtype pandas infers)."""
    if values.categories.dtype == object:
        return values
    return pd.Categorical.from_codes(values.codes, categories=pd.Index(list(values.categories), dtype=object))


def empty_frame(columns=None) -> pd.DataFrame:
    return _frame_from_columns({}, 0, None if columns is None else _check_columns(columns))


def concat_frames(frames: list[pd.DataFrame]) -> pd.DataFrame:
    """Concatenate chunks keeping categoricals categorical (their categories are united)."""
    if len(frames) == 1:
        return frames[0]
    names = list(dict.fromkeys(c for f in frames for c in f.columns))
    columns = {}
    for name in names:
        parts = [f[name] if name in f else pd.Series([None] * len(f), dtype=object) for f in frames]
        if all(isinstance(p.dtype, pd.CategoricalDtype) for p in parts):
            columns[name] = pd.api.types.union_categoricals([object_categories(p.array) for p in parts],
                                                            ignore_order=True)
        else:
            columns[name] = pd.concat(parts, ignore_index=True)
    total = sum(len(f) for f in frames)
    return pd.DataFrame({k: (v.to_numpy() if isinstance(v, pd.Series) and v.dtype == object else
                             v.array if isinstance(v, pd.Series) else v)
                         for k, v in columns.items()}, index=pd.RangeIndex(total))


# ---------------------------------------------------------------- the file format

def _open(path) -> TraceBytes:
    return TraceBytes(path)


def _not_a_trace(path, why: str) -> TraceFormatError:
    return TraceFormatError(f"{os.fspath(path)} is not a simt trace ({why})")


def _read_header(f, path) -> dict:
    try:
        first = f.readline(1 << 20)
    except (OSError, EOFError) as e:
        raise _not_a_trace(path, f"unreadable: {e}") from None
    if not first.strip():
        raise _not_a_trace(path, "it is empty" if not first else "its first line is blank")
    try:
        header = json.loads(first)
    except (ValueError, RecursionError):     # UnicodeDecodeError is a ValueError
        raise _not_a_trace(path, "its first line is not JSON") from None
    if not isinstance(header, dict) or header.get("type") != "header":
        raise _not_a_trace(path, "its first line is not a simt trace header")
    _check_schema(header, path)
    _check_types(header, HEADER_TYPES, path, 1, "header")
    return header


def _check_schema(header: dict, path) -> dict:
    schema = header.get("schema")
    if isinstance(schema, bool) or not isinstance(schema, int) or schema < 1:
        raise _not_a_trace(path, f"its header has no valid schema version: {schema!r}")
    if schema > SCHEMA:
        raise TraceFormatError(f"{os.fspath(path)}: trace schema {schema} is newer than this simt "
                               f"understands ({SCHEMA}); upgrade simt")
    return header


def _is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_int_list(v) -> bool:
    return isinstance(v, list) and all(_is_int(x) for x in v)


HEADER_TYPES = {"simt": (str, "a string"), "kernel": (str, "a string"), "launch": (_is_int, "an integer"),
                "arch": (str, "a string"), "dim": (_is_int_list, "a list of integers"),
                "block": (_is_int_list, "a list of integers"), "grid": (_is_int_list, "a list of integers"),
                "threads_per_block": (_is_int, "an integer"), "warps_per_block": (_is_int, "an integer"),
                "source": (str, "a string"), "filters": (dict, "an object")}
END_TYPES = {"records": (_is_int, "an integer"), "truncated": (bool, "true or false"),
             "metrics": (dict, "an object")}


def _check_types(record: dict, types: dict, path, line: int, what: str) -> None:
    for key, (check, name) in types.items():
        if key not in record:
            continue
        v = record[key]
        ok = isinstance(v, check) if isinstance(check, type) else check(v)
        if not ok:
            raise TraceFormatError(f"{os.fspath(path)}, line {line}: the {what}'s {key!r} must be "
                                   f"{name}, got {v!r}")


def _parse_lines(buf: bytes, path, first_line: int, header: dict,
                 wanted: tuple | None = None) -> tuple[pd.DataFrame, dict | None]:
    """Records of a block of whole lines: the compiled scanner, json for the rest."""
    data = np.frombuffer(buf, dtype=np.uint8)
    s = scan.scan(data)
    status = s["status"]
    fast = np.flatnonzero(status == scan.FAST)
    frame = _fast_frame(s, fast, buf, path, first_line, wanted)
    slow = np.flatnonzero(status == scan.SLOW)
    if slow.size == 0:
        return frame, None
    records, where, end = [], [], None
    starts = s["line_start"]
    for li in slow.tolist():
        text = buf[starts[li]:starts[li + 1]]
        line = first_line + li
        try:
            record = json.loads(text)
        except UnicodeDecodeError:
            raise TraceFormatError(f"{os.fspath(path)}, line {line}: not UTF-8 text: "
                                   f"{text[:80]!r}") from None
        except ValueError:
            raise TraceFormatError(f"{os.fspath(path)}, line {line}: not valid JSON: "
                                   f"{text[:80]!r}") from None
        except RecursionError:
            raise TraceFormatError(f"{os.fspath(path)}, line {line}: JSON nested too deeply to "
                                   f"be a trace record: {text[:80]!r}") from None
        kind = record.get("type") if isinstance(record, dict) else None
        if kind == "inst":
            _check_record(record, path, line)
            records.append(record)
            where.append(li)
        elif kind == "end":
            _check_types(record, END_TYPES, path, line, "trailer")
            end = record
        elif kind == "header":
            _check_schema(record, path)
            _check_types(record, HEADER_TYPES, path, line, "header")
        else:
            raise TraceFormatError(f"{os.fspath(path)}, line {line}: not a simt trace "
                                   f"record: {text[:80]!r}")
    if records:
        slow_frame = _slow_frame(records, wanted)
        frame = _merge_in_order(frame, fast, slow_frame, np.array(where))
    return frame, end


def _check_record(record: dict, path, line: int) -> None:
    """TraceFormatError for a known key holding the wrong kind of value."""
    for key, v in record.items():
        if v is None:
            continue
        if key in INT_COLUMNS:
            ok = _integral(v)
            name = "an integer"
        elif key in STR_COLUMNS:
            ok, name = isinstance(v, str), "a string"
        elif key == "addr":
            ok = isinstance(v, list) and len(v) <= scan.LANES and all(a is None or _integral(a) for a in v)
            name = f"a list of at most {scan.LANES} integers or nulls"
        else:
            continue
        if not ok:
            raise TraceFormatError(f"{os.fspath(path)}, line {line}: key {key!r} must be {name}, "
                                   f"got {v!r}")


def _integral(v) -> bool:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return False
    if isinstance(v, float) and not v.is_integer():
        return False
    return -2**63 <= v < 2**63


def _fast_frame(s: dict, rows: np.ndarray, buf: bytes, path, first_line: int,
                wanted: tuple | None) -> pd.DataFrame:
    columns = {name: _int_column(s["ints"][rows, j], name) for j, name in enumerate(INT_COLUMNS)
               if wanted is None or name in wanted}
    for j, name in enumerate(STR_COLUMNS):
        if wanted is None or name in wanted:
            columns[name] = _str_column(s["str_hash"][rows, j], s["str_start"][rows, j],
                                        s["str_end"][rows, j], buf, path, first_line + rows)
    if wanted is None or "addr" in wanted:
        addr = np.full(rows.size, None, dtype=object)
        addr_row = s["addr_row"][rows]
        matrix = s["addr"]
        for i, r in zip(np.flatnonzero(addr_row >= 0).tolist(), addr_row[addr_row >= 0].tolist()):
            addr[i] = matrix[r]
        columns["addr"] = addr
    return _frame_from_columns(columns, rows.size, wanted)


def tight_int(values: np.ndarray, name: str) -> np.ndarray:
    """int64 values in the column's small type (INT_DTYPES) when they all fit."""
    dtype = INT_DTYPES.get(name)
    if dtype is None or values.dtype == dtype:
        return values
    info = np.iinfo(dtype)
    if values.size and (values.min() < info.min or values.max() > info.max):
        return values
    return values.astype(dtype)


def _int_column(values: np.ndarray, name: str):
    missing = values == scan.MISSING
    if not missing.any():
        return tight_int(values, name)
    return pd.arrays.IntegerArray(tight_int(np.where(missing, 0, values), name), missing)


def _str_column(hashes, starts, ends, buf: bytes, path, lines) -> pd.Categorical:
    present = starts >= 0
    codes = np.full(hashes.size, -1, dtype=np.int64)
    found, uniques = pd.factorize(hashes[present])
    codes[present] = found
    first = np.full(uniques.size, hashes.size, dtype=np.int64)
    np.minimum.at(first, found, np.arange(found.size))
    s, e = starts[present], ends[present]
    categories = []
    for i in first.tolist():
        raw = buf[s[i]:e[i]]
        try:
            categories.append(raw.decode())
        except UnicodeDecodeError:
            line = int(lines[np.flatnonzero(present)[i]])
            raise TraceFormatError(f"{os.fspath(path)}, line {line}: not UTF-8 text: "
                                   f"{raw[:80]!r}") from None
    return pd.Categorical.from_codes(codes, categories=pd.Index(categories, dtype=object))


def _slow_frame(records: list[dict], wanted: tuple | None = None) -> pd.DataFrame:
    n = len(records)
    columns = {}
    for name in dict.fromkeys(k for r in records for k in r):
        if name == "type" or (wanted is not None and name not in wanted):
            continue
        values = [r.get(name) for r in records]
        if name in INT_COLUMNS:
            present = np.array([v is not None for v in values])
            ints = np.array([int(v) if v is not None else 0 for v in values], dtype=np.int64)
            ints = tight_int(ints, name)
            columns[name] = ints if present.all() else pd.arrays.IntegerArray(ints, ~present)
        elif name in STR_COLUMNS:
            columns[name] = object_categories(pd.Categorical(values))
        elif name == "addr":
            col = np.full(n, None, dtype=object)
            for i, v in enumerate(values):
                if v is not None:
                    col[i] = address_row(v)
            columns[name] = col
        else:   # a key this version does not know: kept as Python objects
            col = np.empty(n, dtype=object)
            for i, v in enumerate(values):
                col[i] = v
            columns[name] = col
    return _frame_from_columns(columns, n, wanted)


def _frame_from_columns(columns: dict, n: int, wanted: tuple | None = None) -> pd.DataFrame:
    ordered = {}
    for name in (COLUMNS if wanted is None else [c for c in COLUMNS if c in wanted]):
        if name in columns:
            ordered[name] = columns[name]
        elif name in STR_COLUMNS:
            ordered[name] = pd.Categorical.from_codes(np.full(n, -1), categories=pd.Index([], dtype=object))
        elif name == "addr":
            ordered[name] = np.full(n, None, dtype=object)
        else:
            ordered[name] = pd.arrays.IntegerArray(np.zeros(n, dtype=INT_DTYPES.get(name, np.int64)),
                                                   np.ones(n, dtype=bool))
    for name, col in columns.items():
        if wanted is None or name in wanted:
            ordered.setdefault(name, col)
    if wanted is not None:      # the order asked for
        ordered = {name: ordered[name] for name in wanted if name in ordered}
    return pd.DataFrame(ordered, index=pd.RangeIndex(n))


def _merge_in_order(fast: pd.DataFrame, fast_lines: np.ndarray, slow: pd.DataFrame,
                    slow_lines: np.ndarray) -> pd.DataFrame:
    merged = concat_frames([fast, slow])
    order = np.argsort(np.concatenate([fast_lines, slow_lines]), kind="stable")
    merged = merged.iloc[order]
    merged.index = pd.RangeIndex(len(merged))
    return merged
