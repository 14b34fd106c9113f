"""Reading simt traces (JSON Lines, schema 1, optionally gzip) into pandas DataFrames.

One row per warp-level instruction record. Columns, in order: launch, block, warp, pc, op,
line, col, mask, active, cycle, space, width, addr, wavefronts, ideal, sectors, requests,
taken (plus any key a newer writer adds). Integer columns are int64, or pandas' nullable
Int64 where some records lack the key (``width`` on an ``add``); ``pc``, ``op`` and
``space`` are categoricals; ``addr`` holds, for a memory instruction, a numpy int64 array
of the 32 lanes' byte addresses with -1 for inactive lanes (``null`` in the file), and None
for other instructions. ``df.attrs`` carries the ``header``, the ``end`` trailer (or None)
and the ``path``.

Traces bigger than memory are read in chunks (``iter_trace_chunks``); every analysis in
simt.analysis accepts a path and then works chunk by chunk.
"""
from __future__ import annotations

import gzip
import json
import os
import zlib
from typing import Iterable, Iterator, Union

import numpy as np
import pandas as pd

from ..errors import SimtError
from . import scan

SCHEMA = 1
CHUNK_RECORDS = 65536
READ_BYTES = 1 << 22
INT_COLUMNS = scan.INT_KEYS
STR_COLUMNS = scan.STR_KEYS
COLUMNS = ("launch", "block", "warp", "pc", "op", "line", "col", "mask", "active", "cycle",
           "space", "width", "addr", "wavefronts", "ideal", "sectors", "requests", "taken")
INACTIVE = scan.INACTIVE

Trace = Union[str, os.PathLike, pd.DataFrame, Iterable[pd.DataFrame]]


class TraceFormatError(SimtError, ValueError):
    """A file that is not a simt trace, is damaged, or has a schema newer than this simt."""


def read_header(path: str | os.PathLike) -> dict:
    """The header record of the trace at ``path`` (validated; see ``TraceFormatError``)."""
    with _open(path) as f:
        return _read_header(f, path)


def iter_trace_chunks(path: str | os.PathLike, chunksize: int = CHUNK_RECORDS) -> Iterator[pd.DataFrame]:
    """DataFrames of at most ``chunksize`` lines' records each, in file order.

    Every chunk's ``attrs`` has the ``header``; the chunk holding the trailer also has ``end``.
    The index continues across chunks (record 0, 1, ...).
    """
    if chunksize <= 0:
        raise ValueError(f"chunksize must be positive, got {chunksize}")
    with _open(path) as f:
        header = _read_header(f, path)
        line_no, first_record = 2, 0
        for block, n_lines in _line_blocks(f, chunksize, path):
            frame, end = _parse_lines(block, path, line_no, header)
            frame.index = pd.RangeIndex(first_record, first_record + len(frame))
            frame.attrs = {"header": header, "end": end, "path": os.fspath(path)}
            line_no += n_lines
            first_record += len(frame)
            yield frame


def load_trace(path: str | os.PathLike, chunksize: int = CHUNK_RECORDS) -> pd.DataFrame:
    """The whole trace at ``path`` as one DataFrame (see the module docstring for columns)."""
    header = read_header(path)
    frames, end = [], None
    for frame in iter_trace_chunks(path, chunksize):
        frames.append(frame)
        end = frame.attrs.get("end") or end
    df = concat_frames(frames) if frames else empty_frame()
    df.attrs = {"header": header, "end": end, "path": os.fspath(path)}
    return df


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


def empty_frame() -> pd.DataFrame:
    return _frame_from_columns({}, 0)


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

def _open(path):
    f = open(path, "rb")
    if f.peek(2)[:2] == b"\x1f\x8b":
        f.close()
        return gzip.open(path, "rb")
    return f


def _line_blocks(f, max_lines: int, path) -> Iterator[tuple[bytes, int]]:
    """(bytes of whole lines, how many) of at most ``max_lines`` lines each, read in large
    blocks (no Python object per line)."""
    pending = b""
    eof = False
    while not eof or pending:
        parts, newlines = [pending], int(pending.count(b"\n"))
        while newlines < max_lines and not eof:
            try:
                data = f.read(READ_BYTES)
            except (OSError, EOFError, zlib.error) as e:
                raise TraceFormatError(f"{os.fspath(path)}: the trace is damaged ({e})") from None
            eof = not data
            parts.append(data)
            newlines += data.count(b"\n")
        buf = b"".join(parts)
        if not buf:
            return
        if newlines >= max_lines:
            cut, n = _after_line(buf, max_lines, newlines), max_lines
        else:   # end of file: the rest, whether or not its last line has a newline
            cut, n = len(buf), newlines + (not buf.endswith(b"\n"))
        pending = buf[cut:]
        yield buf[:cut], n


def _after_line(buf: bytes, k: int, newlines: int) -> int:
    """Offset just past the k-th newline of ``buf`` (which has ``newlines`` >= k of them),
    searching only about as far as needed."""
    data = np.frombuffer(buf, dtype=np.uint8)
    limit = min(len(buf), int(len(buf) * k / newlines * 1.1) + 4096)
    while True:
        ends = np.flatnonzero(data[:limit] == 10)
        if ends.size >= k:
            return int(ends[k - 1]) + 1
        limit = min(len(buf), 2 * limit)


def _not_a_trace(path, why: str) -> TraceFormatError:
    return TraceFormatError(f"{os.fspath(path)} is not a simt trace ({why})")


def _read_header(f, path) -> dict:
    try:
        first = f.readline(1 << 20)
    except (OSError, EOFError, zlib.error) as e:
        raise _not_a_trace(path, f"unreadable: {e}") from None
    if not first.strip():
        raise _not_a_trace(path, "it is empty" if not first else "its first line is blank")
    try:
        header = json.loads(first)
    except (UnicodeDecodeError, ValueError):
        raise _not_a_trace(path, "its first line is not JSON") from None
    if not isinstance(header, dict) or header.get("type") != "header":
        raise _not_a_trace(path, "its first line is not a simt trace header")
    return _check_schema(header, path)


def _check_schema(header: dict, path) -> dict:
    schema = header.get("schema")
    if isinstance(schema, bool) or not isinstance(schema, int) or schema < 1:
        raise _not_a_trace(path, f"its header has no valid schema version: {schema!r}")
    if schema > SCHEMA:
        raise TraceFormatError(f"{os.fspath(path)}: trace schema {schema} is newer than this simt "
                               f"understands ({SCHEMA}); upgrade simt")
    return header


def _parse_lines(buf: bytes, path, first_line: int, header: dict) -> tuple[pd.DataFrame, dict | None]:
    """Records of a block of whole lines: the compiled scanner, json for the rest."""
    data = np.frombuffer(buf, dtype=np.uint8)
    s = scan.scan(data)
    status = s["status"]
    fast = np.flatnonzero(status == scan.FAST)
    frame = _fast_frame(s, fast, buf)
    slow = np.flatnonzero(status == scan.SLOW)
    if slow.size == 0:
        return frame, None
    records, where, end = [], [], None
    starts = s["line_start"]
    for li in slow.tolist():
        text = buf[starts[li]:starts[li + 1]]
        try:
            record = json.loads(text)
        except (UnicodeDecodeError, ValueError):
            raise TraceFormatError(f"{os.fspath(path)}, line {first_line + li}: not valid JSON: "
                                   f"{text[:80]!r}") from None
        kind = record.get("type") if isinstance(record, dict) else None
        if kind == "inst":
            records.append(record)
            where.append(li)
        elif kind == "end":
            end = record
        elif kind == "header":
            _check_schema(record, path)
        else:
            raise TraceFormatError(f"{os.fspath(path)}, line {first_line + li}: not a simt trace "
                                   f"record: {text[:80]!r}")
    if records:
        frame = _merge_in_order(frame, fast, _slow_frame(records), np.array(where))
    return frame, end


def _fast_frame(s: dict, rows: np.ndarray, buf: bytes) -> pd.DataFrame:
    columns = {name: _int_column(s["ints"][rows, j]) for j, name in enumerate(INT_COLUMNS)}
    for j, name in enumerate(STR_COLUMNS):
        columns[name] = _str_column(s["str_hash"][rows, j], s["str_start"][rows, j],
                                    s["str_end"][rows, j], buf)
    addr = np.full(rows.size, None, dtype=object)
    addr_row = s["addr_row"][rows]
    matrix = s["addr"]
    for i, r in zip(np.flatnonzero(addr_row >= 0).tolist(), addr_row[addr_row >= 0].tolist()):
        addr[i] = matrix[r]
    columns["addr"] = addr
    return _frame_from_columns(columns, rows.size)


def _int_column(values: np.ndarray):
    missing = values == scan.MISSING
    if not missing.any():
        return values
    return pd.arrays.IntegerArray(np.where(missing, 0, values), missing)


def _str_column(hashes, starts, ends, buf: bytes) -> pd.Categorical:
    present = starts >= 0
    codes = np.full(hashes.size, -1, dtype=np.int64)
    found, uniques = pd.factorize(hashes[present])
    codes[present] = found
    first = np.full(uniques.size, hashes.size, dtype=np.int64)
    np.minimum.at(first, found, np.arange(found.size))
    s, e = starts[present], ends[present]
    categories = [buf[s[i]:e[i]].decode() for i in first.tolist()]
    return pd.Categorical.from_codes(codes, categories=pd.Index(categories, dtype=object))


def _slow_frame(records: list[dict]) -> pd.DataFrame:
    n = len(records)
    columns = {}
    for name in dict.fromkeys(k for r in records for k in r):
        if name == "type":
            continue
        values = [r.get(name) for r in records]
        if name in INT_COLUMNS and _all_integral(values):
            arr = pd.array(values, dtype="Int64")
            columns[name] = arr if arr.isna().any() else arr.to_numpy(dtype=np.int64)
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
    return _frame_from_columns(columns, n)


def _all_integral(values: list) -> bool:
    """Whether ``values`` fit an Int64 column (ints, integral floats such as 3.0, None)."""
    for v in values:
        if v is None:
            continue
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            return False
        if isinstance(v, float) and not v.is_integer():
            return False
        if not -2**63 <= v < 2**63:
            return False
    return True


def _frame_from_columns(columns: dict, n: int) -> pd.DataFrame:
    ordered = {}
    for name in COLUMNS:
        if name in columns:
            ordered[name] = columns[name]
        elif name in STR_COLUMNS:
            ordered[name] = pd.Categorical.from_codes(np.full(n, -1), categories=pd.Index([], dtype=object))
        elif name == "addr":
            ordered[name] = np.full(n, None, dtype=object)
        else:
            ordered[name] = pd.arrays.IntegerArray(np.zeros(n, dtype=np.int64), np.ones(n, dtype=bool))
    for name, col in columns.items():
        ordered.setdefault(name, col)
    return pd.DataFrame(ordered, index=pd.RangeIndex(n))


def _merge_in_order(fast: pd.DataFrame, fast_lines: np.ndarray, slow: pd.DataFrame,
                    slow_lines: np.ndarray) -> pd.DataFrame:
    merged = concat_frames([fast, slow])
    order = np.argsort(np.concatenate([fast_lines, slow_lines]), kind="stable")
    merged = merged.iloc[order]
    merged.index = pd.RangeIndex(len(merged))
    return merged
