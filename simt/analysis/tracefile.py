"""Reading a trace file's bytes: plain or gzip (any number of members), in blocks of whole
lines, keeping everything that is whole when the file was cut short.

The writer (simt/sim/trace/writer.py) flushes a gzip file as one complete member per chunk
of records, and a plain file in whole lines, so a process killed while writing leaves whole
members, or lines, followed by at most one damaged piece at the end. ``TraceBytes`` reads up
to the damage, drops the cut piece (a member without its end, a last line without its
newline that is not a whole record) and says what it dropped in ``damage``.
"""
from __future__ import annotations

import io
import json
import os
import zlib
from typing import Iterator

import numpy as np

READ_BYTES = 1 << 22
GZIP_MAGIC = b"\x1f\x8b"


class _GzipMembers(io.RawIOBase):
    """The decompressed bytes of every gzip member in turn; stops quietly at damage (a cut
    or corrupt member), setting ``damage``."""

    def __init__(self, raw):
        self.raw = raw
        self.member = zlib.decompressobj(wbits=31)
        self.members = 0
        self.damage: str | None = None
        self.done = False
        self.in_member = False

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        while not self.done:
            data = self._next_output(len(buffer))
            if data:
                buffer[:len(data)] = data
                return len(data)
        return 0

    def _next_output(self, limit: int) -> bytes:
        pending = self.member.unconsumed_tail
        if not pending:
            pending = self.raw.read(1 << 16)
            if not pending:
                self.done = True
                if self.in_member:
                    self.damage = (f"the file ends inside gzip member {self.members + 1} "
                                   f"(cut while it was written)")
                return b""
        self.in_member = True
        try:
            out = self.member.decompress(pending, limit)
        except zlib.error as e:
            self.done = True
            self.damage = f"gzip member {self.members + 1} is corrupt ({e})"
            return b""
        if self.member.eof:
            self.members += 1
            rest = self.member.unused_data
            self.member = zlib.decompressobj(wbits=31)
            self.in_member = False
            if rest:
                if rest[:2] != GZIP_MAGIC and not rest.strip(b"\0"):
                    self.done = True          # zero padding after the last member
                elif rest[:2] != GZIP_MAGIC:
                    self.done = True
                    self.damage = f"{len(rest)} bytes after gzip member {self.members} are not gzip"
                else:
                    self.raw = _Prepend(rest, self.raw)
        return out


class _Prepend:
    """``data`` followed by the rest of ``raw``."""

    def __init__(self, data: bytes, raw):
        self.data, self.raw = data, raw

    def read(self, n: int) -> bytes:
        if self.data:
            out, self.data = self.data[:n], self.data[n:]
            return out
        return self.raw.read(n)

    def close(self) -> None:
        self.raw.close()


class TraceBytes:
    """A trace file opened for reading: ``readline`` (for the header) and ``line_blocks``."""

    def __init__(self, path):
        self.path = os.fspath(path)
        self.raw = open(path, "rb")
        self.gzip = self.raw.peek(2)[:2] == GZIP_MAGIC
        self.members = _GzipMembers(self.raw) if self.gzip else None
        self.stream = io.BufferedReader(self.members, READ_BYTES) if self.gzip else self.raw
        self.cut_line: bytes | None = None      # a last line dropped as cut short

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        self.raw.close()

    def readline(self, limit: int) -> bytes:
        return self.stream.readline(limit)

    @property
    def damage(self) -> str | None:
        """What was dropped, or None when the file was read whole."""
        parts = []
        if self.members is not None and self.members.damage:
            parts.append(self.members.damage)
        if self.cut_line is not None:
            parts.append(f"its last line is cut short ({len(self.cut_line)} bytes: "
                         f"{self.cut_line[:40]!r}...)")
        return "; ".join(parts) or None

    def line_blocks(self, max_lines: int) -> Iterator[tuple[bytes, int]]:
        """(bytes of whole lines, how many) of at most ``max_lines`` lines each, read in large
        blocks (no Python object per line). A last line without a newline is kept when it is
        a whole JSON value, else dropped as cut short (see ``damage``)."""
        f = self.stream
        pending = b""
        eof = False
        while not eof or pending:
            parts, newlines = [pending], int(pending.count(b"\n"))
            while newlines < max_lines and not eof:
                data = f.read(READ_BYTES)
                eof = not data
                parts.append(data)
                newlines += data.count(b"\n")
            buf = b"".join(parts)
            if not buf:
                return
            if newlines >= max_lines:
                cut, n = _after_line(buf, max_lines, newlines), max_lines
            else:   # end of file: the rest
                buf = self._keep_whole_end(buf)
                cut, n = len(buf), buf.count(b"\n")
                if not buf:
                    return
            pending = buf[cut:]
            yield buf[:cut], n

    def _keep_whole_end(self, buf: bytes) -> bytes:
        if buf.endswith(b"\n"):
            return buf
        start = buf.rfind(b"\n") + 1
        tail = buf[start:]
        if not tail.strip():
            return buf[:start]
        try:
            json.loads(tail)
        except (ValueError, RecursionError):
            self.cut_line = tail
            return buf[:start]
        return buf + b"\n"


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
