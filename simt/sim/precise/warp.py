"""Barriers and warp intrinsics: ops whose result depends on other lanes than one's own.

Warp intrinsics follow PTX's ``*.sync`` rules: every lane named in a lane's mask must be
executing the same instruction with it (or have exited), and the lane itself must be in
its mask; otherwise WarpSyncError names the lanes that did not arrive.
"""
from __future__ import annotations

import numpy as np

from ...ir.mir import Instr, Op, Reg, ShflMode, VoteMode
from .diagnostics import lane_ranges

LANE_BITS = (np.uint32(1) << np.arange(32, dtype=np.uint32)).astype(np.uint32)


def make_barrier(ins: Instr, d: list[int], s: list[int]):
    if ins.op is Op.BAR:
        def bar(env, ctx):
            pass  # the scheduler checked that the whole block arrived before running this block
        return bar
    (p,), out = s, d[0]

    def bar_and(env, ctx):
        pred = np.broadcast_to(np.asarray(ctx.pick(env[p]), dtype=bool), (ctx.n_active,))
        cta = ctx.cta_of_active()
        failed = np.bincount(cta, weights=~pred, minlength=ctx.n_ctas) > 0
        env[out] = ctx.spread(~failed[cta], bool)
    return bar_and


def make_warp_op(ins: Instr, d: list[int], s: list[int]):
    op = ins.op
    if op is Op.ACTIVEMASK:
        out = d[0]

        def activemask(env, ctx):
            present, _, seg = ctx.warp_masks()
            env[out] = ctx.spread(present[seg], np.uint32)
        return activemask
    if op is Op.SYNCWARP:
        (m,) = s

        def syncwarp(env, ctx):
            check_mask(ctx, ins, env[m])
            if ctx.checker is not None:
                ctx.checker.syncwarp(ctx)
        return syncwarp
    if op is Op.VOTE:
        p, m = s
        out = d[0]
        mode: VoteMode = ins.arg

        def vote(env, ctx):
            mask = check_mask(ctx, ins, env[m])
            pred = np.broadcast_to(np.asarray(ctx.pick(env[p]), dtype=bool), (ctx.n_active,))
            _, _, seg = ctx.warp_masks()
            lane_bits = np.where(pred, LANE_BITS[ctx.laneid_of_active()], np.uint32(0))
            ballot_w = np.bitwise_or.reduceat(lane_bits, ctx.segment_starts()) if lane_bits.size else lane_bits
            ballot = ballot_w[seg] & mask
            if mode is VoteMode.BALLOT:
                env[out] = ctx.spread(ballot.astype(np.uint32), np.uint32)
            elif mode is VoteMode.ANY:
                env[out] = ctx.spread(ballot != 0, bool)
            else:
                env[out] = ctx.spread(ballot == mask, bool)
        return vote
    if op is Op.SHFL:
        v, lane_arg, m = s
        out = d[0]
        mode: ShflMode = ins.arg
        value_is_reg = isinstance(ins.srcs[0], Reg)

        def shfl(env, ctx):
            check_mask(ctx, ins, env[m])
            if not value_is_reg:
                env[out] = env[v]
                return
            lane = ctx.laneid_of_active().astype(np.int64)
            b = np.asarray(ctx.pick(env[lane_arg])).astype(np.int64)
            if mode is ShflMode.IDX:
                src = b & 31
                ok = np.ones_like(lane, dtype=bool)
            elif mode is ShflMode.UP:
                src = lane - b
                ok = (src >= 0) & (src <= 31)
            elif mode is ShflMode.DOWN:
                src = lane + b
                ok = (src >= 0) & (src <= 31)
            else:
                src = lane ^ b
                ok = (src >= 0) & (src <= 31)
            src = np.where(ok, src, lane)
            src_lane = (ctx.sel() & ~np.int64(31)) + src
            value = env[v]
            if ctx.dense:        # env holds every lane of the batch
                full = np.broadcast_to(value, (ctx.n_lanes,))
            else:                # publish this block's value of v, then read any lane of it
                full = ctx.register_file(v)
                full[ctx.sel()] = value
            env[out] = ctx.spread(full[src_lane], ins.dsts[0].type.np)
        return shfl
    raise NotImplementedError(op.name)


def check_mask(ctx, ins: Instr, mask_value) -> np.ndarray:
    """Validate a *_sync mask per lane; return it as a uint32 array over the active lanes."""
    mask = np.broadcast_to(np.asarray(ctx.pick(mask_value)).astype(np.uint32), (ctx.n_active,))
    present, exited, seg = ctx.warp_masks()
    lane_bit = LANE_BITS[ctx.laneid_of_active()]
    missing = mask & ~present[seg] & ~exited[seg]
    not_self = (mask & lane_bit) == 0
    bad = (missing != 0) | not_self
    if np.any(bad):
        k = int(np.flatnonzero(bad)[0])
        if not_self[k]:
            why = f"the calling lane is not in its mask 0x{int(mask[k]):08x}"
        else:
            lanes = [i for i in range(32) if int(missing[k]) >> i & 1]
            why = (f"mask 0x{int(mask[k]):08x} names lanes {lane_ranges(lanes)} that did not reach this "
                   f"instruction with lane {int(ctx.laneid_of_active()[k])} (they are inactive on this path)")
        ctx.raise_warp_sync(ins, k, why, count=int(np.count_nonzero(bad)))
    return mask
