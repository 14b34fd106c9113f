"""C printf formats, as kernels' ``printf``/``print`` use them: the one reading of a format
that the engines (which format on the host) and the PTX backend (vprintf) share.

Supported conversions: d i u x X o c f F e E g G, with flags, width and precision; length
modifiers (h, hh, l, ll, z, j, t) are accepted and ignored, since the MIR operand's type says
how wide the value is. ``%%`` is a literal percent sign.
"""
from __future__ import annotations

import re

_SPEC = re.compile(r"%(?P<flags>[-+ #0]*)(?P<width>\d+|\*)?(?:\.(?P<prec>\d+|\*))?"
                   r"(?P<length>hh|h|ll|l|z|j|t|L)?(?P<conv>[diuxXocfFeEgGsp%])")
INTEGER, FLOAT = "diuxXoc", "fFeEgG"


def conversions(fmt: str) -> list[str]:
    """The conversion letter of each value the format consumes, in order."""
    out = []
    pos = 0
    while True:
        k = fmt.find("%", pos)
        if k < 0:
            return out
        m = _SPEC.match(fmt, k)
        if m is None:
            raise ValueError(f"bad conversion at {fmt[k:k + 6]!r}")
        conv = m.group("conv")
        if "*" in (m.group("width") or "") + (m.group("prec") or ""):
            raise ValueError("'*' widths are not supported")
        if conv in "sp":
            raise ValueError(f"%{conv} takes a string or pointer, which kernels do not have")
        if conv != "%":
            out.append(conv)
        pos = m.end()


def format_c(fmt: str, values) -> str:
    """``fmt % values`` with C's rules (``%u`` of a negative value wraps, ``%c`` of an int)."""
    parts = []
    pos = 0
    it = iter(values)
    for m in _SPEC.finditer(fmt):
        parts.append(fmt[pos:m.start()])
        pos = m.end()
        conv = m.group("conv")
        if conv == "%":
            parts.append("%")
            continue
        value = next(it)
        spec = "%" + (m.group("flags") or "") + (m.group("width") or "") + \
            (f".{m.group('prec')}" if m.group("prec") is not None else "")
        if conv in INTEGER:
            v = int(value)
            if conv in "uxXo" and v < 0:
                v += 1 << (8 * getattr(value, "itemsize", 8))
            if conv == "c":
                parts.append(chr(v & 0xFF))
                continue
            parts.append((spec + ("d" if conv in "iu" else conv)) % v)
        else:
            parts.append((spec + conv) % float(value))
    parts.append(fmt[pos:])
    return "".join(parts)
