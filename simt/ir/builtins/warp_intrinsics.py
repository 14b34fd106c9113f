"""Warp-level intrinsics (CUDA's __shfl_*_sync, __ballot_sync, __any_sync, __all_sync,
__activemask, __syncwarp). Not pure: never folded, hoisted or reordered.

Masks may be written as int32 or uint32 values (0xFFFFFFFF is an int literal that does not
fit int32; the front end hands it over as an immediate) and are converted to uint32. A
shuffle moves each component of a vector/matrix/quaternion with one SHFL; 8-bit and bool
values travel widened to int32.
"""
from __future__ import annotations

from typing import Sequence

from ..builder import Builder
from ..mir import Op, Operand, ShflMode, VoteMode
from ..registry import register
from ..types import VOID, AnyType, Scalar
from .common import Args, arity, const, fail, is_scalar, to_u32, truthy

GROUP = "warp"
SHUFFLE_NATIVE = frozenset({Scalar.I32, Scalar.U32, Scalar.I64, Scalar.U64, Scalar.F32, Scalar.F64})
FULL_MASK = 0xFFFFFFFF


def _want_mask(name: str, t: AnyType) -> None:
    if not (is_scalar(t) and t.is_int):
        fail(f"{name}() mask must be an integer (e.g. 0xFFFFFFFF), not {t}")


def _want_lane(name: str, what: str, t: AnyType) -> None:
    if not (is_scalar(t) and t.is_int):
        fail(f"{name}() {what} must be an integer, not {t}")


# --- shuffles --------------------------------------------------------------------------------

SHUFFLES = {
    "shfl_sync": (ShflMode.IDX, "src_lane", "the value held by lane src_lane"),
    "shfl_up_sync": (ShflMode.UP, "delta", "the value of lane (lane - delta); lanes below delta "
                                           "keep their own"),
    "shfl_down_sync": (ShflMode.DOWN, "delta", "the value of lane (lane + delta); lanes past the "
                                               "end keep their own"),
    "shfl_xor_sync": (ShflMode.XOR, "lane_mask", "the value of lane (lane ^ lane_mask)"),
}


def shuffle_one(b: Builder, mode: ShflMode, x: Operand, lane: Operand, mask: Operand) -> Operand:
    t = x.type
    if t in SHUFFLE_NATIVE:
        dst = b.reg(t)
        b.emit(Op.SHFL, (dst,), (x, lane, mask), mode)
        return dst
    wide = b.reg(Scalar.I32)
    b.emit(Op.SHFL, (wide,), (b.cvt(x, Scalar.I32), lane, mask), mode)
    if t is Scalar.BOOL:
        return b.compare(Op.NE, wide, const(0, Scalar.I32))
    return b.cvt(wide, t)


def make_shuffle(name: str):
    mode, lane_name, what = SHUFFLES[name]

    def infer(arg_types: Sequence[AnyType]) -> AnyType:
        arity(name, arg_types, 3)
        mask, value, lane = arg_types
        _want_mask(name, mask)
        _want_lane(name, lane_name, lane)
        return value

    def lower(b: Builder, arg_types, args: Args) -> list[Operand]:
        mask = to_u32(b, args[0][0])
        lane = b.cvt(args[2][0], Scalar.I32)
        return [shuffle_one(b, mode, x, lane, mask) for x in args[1]]

    register(name, infer, lower,
             f"{name}(mask, value, {lane_name}): {what}, read from the lanes named in mask "
             f"(all of which must call it with the same mask). Any scalar or composite value.",
             GROUP, pure=False)


for _name in SHUFFLES:
    make_shuffle(_name)


# --- votes --------------------------------------------------------------------------------------

VOTES = {
    "ballot_sync": (VoteMode.BALLOT, Scalar.U32, "a uint32 whose bit i is set when lane i's "
                                                 "predicate is true"),
    "any_sync": (VoteMode.ANY, Scalar.BOOL, "True when the predicate is true in any lane"),
    "all_sync": (VoteMode.ALL, Scalar.BOOL, "True when the predicate is true in every lane"),
}


def make_vote(name: str):
    mode, result, what = VOTES[name]

    def infer(arg_types: Sequence[AnyType]) -> AnyType:
        arity(name, arg_types, 2)
        mask, pred = arg_types
        _want_mask(name, mask)
        if not is_scalar(pred) or pred.is_float:
            fail(f"{name}() predicate must be a bool or an integer, not {pred}")
        return result

    def lower(b: Builder, arg_types, args: Args) -> list[Operand]:
        mask = to_u32(b, args[0][0])
        pred = truthy(b, args[1][0])
        dst = b.reg(result)
        b.emit(Op.VOTE, (dst,), (pred, mask), mode)
        return [dst]

    register(name, infer, lower,
             f"{name}(mask, predicate): {what} (among the lanes named in mask that are active).",
             GROUP, pure=False)


for _name in VOTES:
    make_vote(_name)


# --- active mask, syncwarp ------------------------------------------------------------------------

def active_mask_infer(arg_types):
    arity("active_mask", arg_types, 0)
    return Scalar.U32


def active_mask_lower(b, arg_types, args):
    dst = b.reg(Scalar.U32)
    b.emit(Op.ACTIVEMASK, (dst,))
    return [dst]


register("active_mask", active_mask_infer, active_mask_lower,
         "active_mask(): a uint32 with bit i set for each lane of the warp executing this call.",
         GROUP, pure=False)


def syncwarp_infer(arg_types):
    arity("syncwarp", arg_types, 0, 1)
    if arg_types:
        _want_mask("syncwarp", arg_types[0])
    return VOID


def syncwarp_lower(b, arg_types, args):
    mask = to_u32(b, args[0][0]) if args else const(FULL_MASK, Scalar.U32)
    b.emit(Op.SYNCWARP, srcs=(mask,))
    return []


register("syncwarp", syncwarp_infer, syncwarp_lower,
         "syncwarp(mask=0xFFFFFFFF): the lanes named in mask wait for each other, and their "
         "memory accesses before it are visible to each other after it.", GROUP, pure=False)

__all__ = ["FULL_MASK"]
