"""The PTX importer's tables: PTX types and special registers, and the handler of each
opcode (filled in by simt/ptx_import/ops.py; docs/ptx_coverage.md is generated from it)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from ..ir.mir import SReg
from ..ir.types import Scalar

TYPES = {"s8": Scalar.I8, "s16": Scalar.I16, "s32": Scalar.I32, "s64": Scalar.I64,
         "u8": Scalar.U8, "u16": Scalar.U16, "u32": Scalar.U32, "u64": Scalar.U64,
         "b8": Scalar.U8, "b16": Scalar.U16, "b32": Scalar.U32, "b64": Scalar.U64,
         "f32": Scalar.F32, "f64": Scalar.F64, "pred": Scalar.BOOL}

SREGS = {"%tid.x": SReg.TID_X, "%tid.y": SReg.TID_Y, "%tid.z": SReg.TID_Z,
         "%ntid.x": SReg.NTID_X, "%ntid.y": SReg.NTID_Y, "%ntid.z": SReg.NTID_Z,
         "%ctaid.x": SReg.CTAID_X, "%ctaid.y": SReg.CTAID_Y, "%ctaid.z": SReg.CTAID_Z,
         "%nctaid.x": SReg.NCTAID_X, "%nctaid.y": SReg.NCTAID_Y, "%nctaid.z": SReg.NCTAID_Z,
         "%laneid": SReg.LANEID, "%warpid": SReg.WARPID}

SHARED_ALIGN = 16
IGNORED_MODS = {"ftz", "uni", "aligned", "nc", "ca", "cg", "cs", "lu", "cv", "volatile",
                "relaxed", "gpu", "cta", "sys", "full", "approx", "rn", "sync", "wide", "lo",
                "hi", "to", "shared::cta"}


@dataclass
class Handler:
    fn: Callable
    doc: str                     # forms handled, for docs/ptx_coverage.md


HANDLERS: dict[str, Handler] = {}


def handles(*opcodes: str, doc: str):
    def wrap(fn):
        for op in opcodes:
            HANDLERS[op] = Handler(fn, doc)
        return fn
    return wrap
