"""Barriers and warp intrinsics in the generated code: what a thread leaves behind when it
suspends, and the scheduler that resolves suspended threads between rounds.

The rules follow the precise engine (simt/sim/precise/warp.py and engine.py):
- A warp's suspended lanes are resolved lowest collective first (program order, as the
  precise engine runs the lowest block first); the lanes taking part are those waiting at
  that collective, the *active mask*. Each lane's ``*_sync`` mask must name only lanes
  that take part or have exited, and the lane itself, else WarpSyncError.
- Threads run ahead of the precise engine's order (one after another, not lowest block
  first), so each thread records the furthest block it reached (``maxblk``): a thread that
  went past a collective's block counts as absent there, as it would in the precise engine,
  even if it has exited since.
- Once no warp can move, every live thread of the block waits at a barrier: they must all
  wait at the same one (else BarrierDivergenceError); then all are released.
"""
from __future__ import annotations

from typing import Callable

from ...ir.mir import Op, Reg, ShflMode, VoteMode
from ...ir.types import Scalar
from .ops import ERR_BARRIER, ERR_WARP_SYNC, CAST
from .segments import Layout, Segment

RUNNABLE, WAITING, EXITED = 0, 1, 2


def point_tables(layout: Layout) -> list[str]:
    if not layout.points:
        return []
    kinds = ", ".join("1" if layout.is_barrier_point(k) else "0" for k in range(len(layout.points)))
    blocks = ", ".join(str(seg.block_index) for seg in layout.points)
    return [f"IS_BARRIER = np.array([{kinds}], dtype=np.int8)",
            f"BLOCK_OF_POINT = np.array([{blocks}], dtype=np.int64)"]


def _staging(layout: Layout):
    """(point, collective, value type or None, has lane arg, has mask) per collective."""
    for k, seg in enumerate(layout.points):
        ins = seg.collective
        op = ins.op
        if op is Op.SHFL:
            yield k, ins, ins.srcs[0].type, True, True
        elif op is Op.VOTE:
            yield k, ins, Scalar.BOOL, False, True
        elif op is Op.SYNCWARP:
            yield k, ins, None, False, True
        elif op is Op.BAR_AND:
            yield k, ins, Scalar.BOOL, False, False
        else:                                   # BAR, ACTIVEMASK
            yield k, ins, None, False, False


def allocate(src, layout: Layout, slot_counts: dict[Scalar, int]) -> None:
    src.add("TP = ((T + 31) // 32) * 32", "NW = TP // 32",
            "status = np.zeros(TP, np.int8)", "point = np.zeros(TP, np.int32)",
            "resume = np.zeros(TP, np.int32)", "tsteps = np.zeros(TP, np.int64)",
            "maxblk = np.zeros(TP, np.int64)")
    for t, n in slot_counts.items():
        src.add(f"R_{t.short} = np.zeros(({n}, TP), {CAST[t]})")
    for k, ins, vtype, lane, mask in _staging(layout):
        if vtype is not None:
            src.add(f"V{k} = np.zeros(TP, {CAST[vtype]})")
        if lane:
            src.add(f"L{k} = np.zeros(TP, np.int32)")
        if mask:
            src.add(f"M{k} = np.zeros(TP, np.uint32)")


def reset_block(src, layout: Layout, slot_counts: dict[Scalar, int]) -> None:
    src.add(f"status[:] = {RUNNABLE}", f"status[T:] = {EXITED}", "resume[:] = -1", "tsteps[:] = 0",
            "maxblk[:] = -1")
    for t in slot_counts:
        src.add(f"R_{t.short}[:] = 0")
    for k, ins, vtype, lane, mask in _staging(layout):
        if vtype is not None:
            src.add(f"V{k}[:] = 0")


def suspend(layout: Layout, seg: Segment, slots: dict, val: Callable, save=None) -> list[str]:
    """Lines run by a thread reaching ``seg``'s collective: stage operands, save live registers
    (those in ``save``, where given: codegen's plan of which slots are current already)."""
    ins = seg.collective
    k = seg.point
    lines = []
    if ins.op is Op.SHFL:
        value, lane, mask = ins.srcs
        lines += [f"V{k}[t] = {val(value)}", f"L{k}[t] = {val(lane)}", f"M{k}[t] = {val(mask)}"]
    elif ins.op is Op.VOTE:
        lines += [f"V{k}[t] = {val(ins.srcs[0])}", f"M{k}[t] = {val(ins.srcs[1])}"]
    elif ins.op is Op.SYNCWARP:
        lines.append(f"M{k}[t] = {val(ins.srcs[0])}")
    elif ins.op is Op.BAR_AND:
        lines.append(f"V{k}[t] = {val(ins.srcs[0])}")
    after = layout.segments[seg.resume].live_in if save is None else save
    dst = ins.dsts[0].id if ins.dsts else None
    for rid in sorted(after):
        if rid != dst:
            t, slot = slots[rid]
            lines.append(f"R_{t.short}[{slot}, t] = r{rid}")
    lines += [f"resume[t] = {seg.resume}", f"point[t] = {k}", f"status[t] = {WAITING}"]
    return lines


def resolve(src, layout: Layout, slots: dict, fail: Callable) -> None:
    """The scheduler between rounds (inside the per-block ``while True``)."""
    src.add("progressed = False",
            "for w in range(NW):")
    src.indent()
    src.add("base = w * 32", "low = 1 << 30",
            "for l in range(32):",
            f"    if status[base + l] == {WAITING}:",
            "        pk = point[base + l]",
            "        if IS_BARRIER[pk] == 0 and pk < low:",
            "            low = pk",
            "if low == 1 << 30:",
            "    continue",
            "progressed = True",
            "present = 0", "exited = 0", "b = BLOCK_OF_POINT[low]",
            "for l in range(32):",
            f"    if status[base + l] == {WAITING} and point[base + l] == low:",
            "        present |= 1 << l",
            # a lane that exited from a block laid out after this one is, to the precise
            # engine's lowest-block-first order, still live there: absent, not exited
            f"    elif status[base + l] == {EXITED} and maxblk[base + l] <= b:",
            "        exited |= 1 << l")
    first = True
    for k, seg in enumerate(layout.points):
        if layout.is_barrier_point(k):
            continue
        src.add(f"{'if' if first else 'elif'} low == {k}:")
        first = False
        src.indent()
        _resolve_warp_op(src, layout, seg, slots, fail)
        src.dedent()
    src.add("for l in range(32):",
            "    if (present >> l) & 1:",
            f"        status[base + l] = {RUNNABLE}",
            "        maxblk[base + l] = b")
    src.dedent()
    src.add("if progressed:", "    continue")
    _resolve_barrier(src, layout, slots, fail)


def _check_masks(src, k: int, ins, fail: Callable) -> None:
    src.add("for l in range(32):")
    src.indent()
    src.add("if (present >> l) & 1:")
    src.indent()
    src.add("t = base + l", f"m = np.int64(M{k}[t])", "missing = m & ~present & ~exited",
            "if missing != 0 or ((m >> l) & 1) == 0:")
    src.add(*("    " + x for x in fail(ERR_WARP_SYNC, ins, "m", "missing", "present")))
    src.dedent(2)


def _write_result(ins, slots: dict, value: str) -> list[str]:
    """Store a collective's result for lane ``t`` if any later code reads it."""
    d: Reg = ins.dsts[0]
    if d.id not in slots:
        return []
    t, slot = slots[d.id]
    return [f"R_{t.short}[{slot}, t] = {CAST[t]}({value})"]


def _resolve_warp_op(src, layout: Layout, seg: Segment, slots: dict, fail: Callable) -> None:
    ins = seg.collective
    k = seg.point
    if ins.op is Op.ACTIVEMASK:
        src.add("for l in range(32):", "    if (present >> l) & 1:", "        t = base + l")
        src.add(*("        " + x for x in _write_result(ins, slots, "present")) or ["        pass"])
        return
    _check_masks(src, k, ins, fail)
    if ins.op is Op.SYNCWARP:
        return
    if ins.op is Op.VOTE:
        src.add("ballot = 0", "for l in range(32):",
                f"    if (present >> l) & 1 and V{k}[base + l]:", "        ballot |= 1 << l")
        mode: VoteMode = ins.arg
        result = {VoteMode.BALLOT: "ballot & m", VoteMode.ANY: "(ballot & m) != 0",
                  VoteMode.ALL: "(ballot & m) == m"}[mode]
        src.add("for l in range(32):", "    if (present >> l) & 1:", "        t = base + l",
                f"        m = np.int64(M{k}[t])")
        src.add(*("        " + x for x in _write_result(ins, slots, result)) or ["        pass"])
        return
    if ins.op is Op.SHFL:
        mode: ShflMode = ins.arg
        value_is_reg = isinstance(ins.srcs[0], Reg)
        src.add("for l in range(32):", "    if (present >> l) & 1:")
        src.indent(2)
        src.add("t = base + l", f"b = np.int64(L{k}[t])")
        if mode is ShflMode.IDX:
            src.add("s = b & 31")
        elif mode is ShflMode.UP:
            src.add("s = l - b", "if s < 0:", "    s = l")
        elif mode is ShflMode.DOWN:
            src.add("s = l + b", "if s > 31:", "    s = l")
        else:
            src.add("s = l ^ b", "if s < 0 or s > 31:", "    s = l")
        value = f"V{k}[base + s]" if value_is_reg else f"V{k}[t]"
        src.add(*(_write_result(ins, slots, value) or ["pass"]))
        src.dedent(2)
        return
    raise NotImplementedError(ins.op.name)


def _resolve_barrier(src, layout: Layout, slots: dict, fail: Callable) -> None:
    """Release the block's threads from the barrier they all wait at.

    The precise engine runs the lowest block first, so a barrier resolves while any thread
    that went *past* it in the layout (its furthest block ``maxblk`` is later, even if it
    has exited since) still counts as live and absent: BarrierDivergenceError, as there.
    """
    src.add("low = 1 << 30", "live = 0", "first = -1",
            "for u in range(T):",
            f"    if status[u] == {WAITING}:",
            "        live += 1",
            "        if point[u] < low:",
            "            low = point[u]",
            "if live == 0:",
            "    break",
            "b = BLOCK_OF_POINT[low]",
            "here = 0", "absent = 0",
            "for u in range(T):",
            f"    if status[u] == {WAITING} and point[u] == low:",
            "        here += 1",
            "        if first < 0:",
            "            first = u",
            "    elif status[u] == WAITING_ or maxblk[u] > b:".replace("WAITING_", str(WAITING)),
            "        absent += 1",
            "if absent != 0:")
    src.indent()
    src.add("for u in range(TP):", "    err_state[0, u] = status[u]", "    err_state[1, u] = point[u]",
            "    err_state[2, u] = maxblk[u]", "t = first")
    for k, seg in enumerate(layout.points):
        if layout.is_barrier_point(k):
            src.add(f"if low == {k}:")
            src.add(*("    " + x for x in fail(ERR_BARRIER, seg.collective, "here", "absent")))
    src.add("return")
    src.dedent()
    for k, seg in enumerate(layout.points):
        if layout.is_barrier_point(k) and seg.collective.op is Op.BAR_AND:
            src.add(f"if low == {k}:")
            src.indent()
            src.add("acc = True", "for u in range(T):",
                    f"    if status[u] == {WAITING} and not V{k}[u]:", "        acc = False",
                    "for t in range(T):", f"    if status[t] == {WAITING}:")
            src.add(*("        " + x for x in _write_result(seg.collective, slots, "acc")) or ["        pass"])
            src.dedent()
    src.add("for u in range(T):",
            f"    if status[u] == {WAITING}:",
            f"        status[u] = {RUNNABLE}",
            "        maxblk[u] = b",
            "    else:",
            "        maxblk[u] = -1")
