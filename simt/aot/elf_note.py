"""An ELF note section appended to a cubin without moving any other byte.

Appended after the file's last byte: a copy of ``.shstrtab`` with the new section's name
added, the note (name ``simt``, type 1, the signature JSON as its descriptor) and a new
section header table: the old one's entries, with ``.shstrtab``'s entry naming the copy (a
superset, so every name offset still holds), plus one entry for ``.note.simt.info``. In the
original bytes only the ELF header's ``e_shoff`` and ``e_shnum`` change: every section,
program header and the old table stay where they were, byte for byte.
"""
from __future__ import annotations

import struct

from ..errors import CompileError

SECTION_NAME = ".note.simt.info"
NOTE_NAME = b"simt"
NOTE_TYPE = 1
SHT_NOTE, SHT_STRTAB = 7, 3


def _header(data: bytes):
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        raise CompileError("the cubin is not a 64-bit little-endian ELF file")
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    return shoff, shentsize, shnum, shstrndx


def sections(data: bytes) -> list[dict]:
    """Every section header: name offset, type, flags, offset, size (and its index)."""
    shoff, shentsize, shnum, _ = _header(data)
    out = []
    for k in range(shnum):
        name, stype, flags, addr, offset, size, link, info, align, entsize = struct.unpack_from(
            "<IIQQQQIIQQ", data, shoff + k * shentsize)
        out.append(dict(index=k, name=name, type=stype, flags=flags, offset=offset, size=size,
                        link=link, info=info, align=align, entsize=entsize))
    return out


def section_name(data: bytes, sec: dict) -> str:
    _, _, _, shstrndx = _header(data)
    strtab = sections(data)[shstrndx]
    start = strtab["offset"] + sec["name"]
    return data[start:data.index(b"\0", start)].decode()


def note_bytes(desc: bytes) -> bytes:
    def pad(b: bytes) -> bytes:
        return b + b"\0" * (-len(b) % 4)
    name = NOTE_NAME + b"\0"
    return struct.pack("<III", len(name), len(desc), NOTE_TYPE) + pad(name) + pad(desc)


def add_note(data: bytes, desc: bytes) -> bytes:
    """``data`` with a note section holding ``desc`` appended (see the module docstring)."""
    shoff, shentsize, shnum, shstrndx = _header(data)
    table = sections(data)
    old_strtab = table[shstrndx]
    strtab = bytes(data[old_strtab["offset"]:old_strtab["offset"] + old_strtab["size"]])
    name_at = len(strtab)
    out = bytearray(data)

    def place(blob: bytes) -> int:
        out.extend(b"\0" * (-len(out) % 8))
        at = len(out)
        out.extend(blob)
        return at

    copy_off = place(strtab + SECTION_NAME.encode() + b"\0")
    note = note_bytes(desc)
    note_off = place(note)
    entries = bytearray(data[shoff:shoff + shnum * shentsize])
    # the section-name table's entry now names the longer copy (a superset: same offsets)
    struct.pack_into("<QQ", entries, shstrndx * shentsize + 0x18, copy_off, name_at + len(SECTION_NAME) + 1)
    entries += struct.pack("<IIQQQQIIQQ", name_at, SHT_NOTE, 0, 0, note_off, len(note), 0, 0, 4, 0)
    new_shoff = place(bytes(entries))
    struct.pack_into("<Q", out, 0x28, new_shoff)
    struct.pack_into("<H", out, 0x3C, shnum + 1)
    return bytes(out)


def read_note(data: bytes) -> bytes | None:
    """The desc of the simt note, or None."""
    for sec in sections(data):
        if sec["type"] == SHT_NOTE and section_name(data, sec) == SECTION_NAME:
            blob = data[sec["offset"]:sec["offset"] + sec["size"]]
            namesz, descsz, _ = struct.unpack_from("<III", blob, 0)
            start = 12 + namesz + (-namesz % 4)
            return bytes(blob[start:start + descsz])
    return None
