"""The precise engine on hand-built MIR: lane semantics, reconvergence, barriers, metrics."""
import numpy as np
import pytest

from simt.errors import BarrierDivergenceError, OutOfBoundsError, StepLimitError, WarpSyncError
from simt.ir.builder import Builder
from simt.ir.mir import (ArrayParam, AtomArg, AtomOp, Function, LaunchSig, Loc, MemRef, Op,
                         ScalarParam, ShflMode, Space, SReg, VoteMode)
from simt.ir.types import Scalar
from simt.sim.common import ArrayArg, LaunchConfig
from simt.sim.precise import run

LOC = Loc(__file__, 1, 0, "k")


@pytest.fixture(autouse=True, params=["dense", "compact"])
def execution_mode(request, monkeypatch):
    """Run every test with both stepping strategies of the engine (a speed choice only)."""
    from simt.sim.precise import engine
    big = request.param == "dense"
    monkeypatch.setattr(engine, "DENSE_FRACTION", 10**9 if big else 0)
    monkeypatch.setattr(engine, "DENSE_BELOW", 10**9 if big else 0)
    return request.param
I32, F32, U32, B = Scalar.I32, Scalar.F32, Scalar.U32, Scalar.BOOL


def cfg(threads, block=32, max_steps=100_000):
    grid = -(-threads // block)
    return LaunchConfig(dim=(threads,), block=(block, 1, 1), grid=(grid, 1, 1),
                        sig=LaunchSig(1, 1), max_steps=max_steps)


def gtid(b: Builder):
    """Global linear thread index, like tid() for a 1-D launch."""
    tx = b.reg(I32)
    b.emit(Op.SREG, (tx,), (), SReg.TID_X)
    cx = b.reg(I32)
    b.emit(Op.SREG, (cx,), (), SReg.CTAID_X)
    nx = b.reg(I32)
    b.emit(Op.SREG, (nx,), (), SReg.NTID_X)
    return b.binary(Op.ADD, b.binary(Op.MUL, cx, nx), tx)


def array(name, elem=I32, ncomp=1):
    return MemRef(name, Space.GLOBAL, elem, 1, ncomp)


def arg(data: np.ndarray, name="out"):
    return ArrayArg(data.reshape(-1), data.shape, 0x1000, name)


def test_divergent_branch_reconverges_and_counts():
    b = Builder(LOC)
    out = array("out")
    entry, then, els, join = (b.new_block(h) for h in ("entry", "then", "else", "join"))
    b.set_block(entry)
    i = gtid(b)
    odd = b.compare(Op.NE, b.binary(Op.AND, i, b.imm(1, I32)), b.imm(0, I32))
    v = b.reg(I32, "v")
    b.cbr(odd, then, els)
    b.set_block(then)
    b.mov(b.binary(Op.MUL, i, b.imm(10, I32)), v)
    b.br(join)
    b.set_block(els)
    b.mov(b.imm(-1, I32), v)
    b.br(join)
    b.set_block(join)
    b.emit(Op.ST, (), (i, v), out)
    b.ret()
    fn = Function("k", [ArrayParam("out", out)], b.blocks)
    data = np.zeros(64, np.int32)
    m = run(fn, cfg(64), [arg(data)])
    expect = np.where(np.arange(64) % 2 == 1, np.arange(64) * 10, -1)
    assert (data == expect).all()
    # 2 warps: entry (each), then (each), else (each), join (each): every block runs once per warp
    n_instr = sum(len(blk.instrs) for blk in fn.blocks)
    assert m["smsp__inst_executed.sum"] == 2 * n_instr
    assert m["smsp__sass_branch_targets_threads_divergent.sum"] == 4
    assert m["smsp__sass_average_branch_targets_threads_uniform.pct"] < 100


def loop_kernel(limit_from_lane: bool, step: int = 0):
    """for k in range(lane % 5 (or forever)): acc += k + step -> per-lane trip counts."""
    b = Builder(LOC)
    out = array("out")
    entry, head, body, exit_ = (b.new_block(h) for h in ("entry", "head", "body", "exit"))
    b.set_block(entry)
    i = gtid(b)
    n = b.binary(Op.REM, i, b.imm(5, I32)) if limit_from_lane else b.imm(1, I32)
    k = b.mov(b.imm(0, I32))
    acc = b.mov(b.imm(0, I32))
    b.br(head)
    b.set_block(head)
    cond = b.compare(Op.LT, k, n)
    b.cbr(cond, body, exit_)
    b.set_block(body)
    b.mov(b.binary(Op.ADD, acc, b.binary(Op.ADD, k, b.imm(step, I32))), acc)
    if limit_from_lane:
        b.mov(b.binary(Op.ADD, k, b.imm(1, I32)), k)
    b.br(head)
    b.set_block(exit_)
    b.emit(Op.ST, (), (i, acc), out)
    b.ret()
    return Function("loop", [ArrayParam("out", out)], b.blocks)


def test_per_lane_trip_counts():
    data = np.zeros(100, np.int32)
    run(loop_kernel(True), cfg(100, block=20), [arg(data)])
    n = np.arange(100) % 5
    assert (data == n * (n - 1) // 2).all()


def test_runaway_loop_stops_with_step_limit():
    data = np.zeros(32, np.int32)       # acc grows every iteration: no state repeats
    with pytest.raises(StepLimitError, match="more than 1000 basic blocks"):
        run(loop_kernel(False, step=1), cfg(32, max_steps=1000), [arg(data)])


def test_a_loop_that_repeats_its_state_is_stopped_long_before_the_step_limit():
    data = np.zeros(64, np.int32)       # acc += 0 forever: the same state every iteration
    with pytest.raises(StepLimitError, match=r"the loop at line 1 never ends: after (\d+) steps") as e:
        run(loop_kernel(False), cfg(64, max_steps=10**6), [arg(data)])
    assert int(str(e.value).split("after ")[1].split(" ")[0]) < 2000


def test_out_of_bounds_names_array_index_thread():
    b = Builder(LOC)
    out = array("out")
    b.set_block(b.new_block())
    i = gtid(b)
    b.emit(Op.ST, (), (b.binary(Op.ADD, i, b.imm(3, I32)), i), out)
    b.ret()
    fn = Function("oob", [ArrayParam("out", out)], b.blocks)
    with pytest.raises(OutOfBoundsError) as e:
        run(fn, cfg(8, block=8), [arg(np.zeros(8, np.int32))])
    msg = str(e.value)
    assert "'oob'" in msg and "out, shape (8,)" in msg and "index: 8" in msg
    assert "threadIdx (x=5" in msg and "blockIdx (x=0" in msg


def barrier_kernel(divergent: bool):
    """shared s[64]: s[t] = t; sync; out[t] = s[63 - t] (a divergent variant skips the barrier)."""
    b = Builder(LOC)
    out = array("out")
    sh = MemRef("s", Space.SHARED, I32, 1, 1, shape=(64,))
    entry, bar, skip = b.new_block("entry"), b.new_block("bar"), b.new_block("after")
    b.set_block(entry)
    t = b.reg(I32)
    b.emit(Op.SREG, (t,), (), SReg.TID_X)
    g = gtid(b)
    b.emit(Op.ST, (), (t, g), sh)
    if divergent:
        b.cbr(b.compare(Op.LT, t, b.imm(16, I32)), bar, skip)
    else:
        b.br(bar)
    b.set_block(bar)
    b.emit(Op.BAR)
    b.br(skip)
    b.set_block(skip)
    v = b.reg(I32)
    b.emit(Op.LD, (v,), (b.binary(Op.SUB, b.imm(63, I32), t),), sh)
    b.emit(Op.ST, (), (g, v), out)
    b.ret()
    return Function("bar", [ArrayParam("out", out)], b.blocks, shared=[sh])


def test_barrier_and_per_block_shared_memory():
    data = np.zeros(256, np.int32)
    run(barrier_kernel(False), cfg(256, block=64), [arg(data)])
    g = np.arange(256)
    assert (data == (g // 64) * 64 + 63 - g % 64).all()


def test_divergent_barrier_is_an_error():
    with pytest.raises(BarrierDivergenceError, match="16 threads arrived"):
        run(barrier_kernel(True), cfg(64, block=64), [arg(np.zeros(64, np.int32))])


def warp_kernel(op, mode, mask=0xFFFFFFFF, guard=None):
    b = Builder(LOC)
    out = array("out", U32 if mode is VoteMode.BALLOT else I32)
    blocks = [b.new_block("entry")]
    b.set_block(blocks[0])
    i = gtid(b)
    lane = b.reg(I32)
    b.emit(Op.SREG, (lane,), (), SReg.LANEID)
    if guard is not None:
        body, end = b.new_block("body"), b.new_block("end")
        b.cbr(b.compare(Op.LT, lane, b.imm(guard, I32)), body, end)
        b.set_block(body)
    if op is Op.SHFL:
        r = b.reg(I32)
        b.emit(Op.SHFL, (r,), (i, b.imm(1 if mode is not ShflMode.IDX else 0, I32),
                               b.imm(mask, U32)), mode)
    else:
        r = b.reg(U32)
        odd = b.compare(Op.NE, b.binary(Op.AND, lane, b.imm(1, I32)), b.imm(0, I32))
        b.emit(Op.VOTE, (r,), (odd, b.imm(mask, U32)), mode)
    b.emit(Op.ST, (), (i, r), out)
    if guard is not None:
        b.br(end)
        b.set_block(end)
    b.ret()
    return Function("w", [ArrayParam("out", out)], b.blocks)


@pytest.mark.parametrize("mode,expect", [
    (ShflMode.DOWN, lambda i: np.where(i % 32 < 31, i + 1, i)),
    (ShflMode.UP, lambda i: np.where(i % 32 > 0, i - 1, i)),
    (ShflMode.XOR, lambda i: i ^ 1),
    (ShflMode.IDX, lambda i: i - i % 32),
])
def test_shuffles(mode, expect):
    data = np.zeros(64, np.int32)
    run(warp_kernel(Op.SHFL, mode), cfg(64), [arg(data)])
    assert (data == expect(np.arange(64))).all()


def test_ballot_and_mask_errors():
    data = np.zeros(32, np.uint32)
    run(warp_kernel(Op.VOTE, VoteMode.BALLOT), cfg(32), [arg(data)])
    assert (data == 0xAAAAAAAA).all()
    with pytest.raises(WarpSyncError, match="16-31"):
        run(warp_kernel(Op.VOTE, VoteMode.BALLOT, guard=16), cfg(32), [arg(data)])
    run(warp_kernel(Op.VOTE, VoteMode.BALLOT, mask=0xFFFF, guard=16), cfg(32), [arg(data)])
    assert (data[:16] == 0xAAAA).all()


@pytest.mark.parametrize("elem,op", [(I32, AtomOp.ADD), (F32, AtomOp.ADD), (I32, AtomOp.MAX),
                                     (I32, AtomOp.EXCH)])
def test_atomics_return_old_values_in_lane_order(elem, op):
    b = Builder(LOC)
    out, acc = array("out", elem), array("acc", elem)
    b.set_block(b.new_block())
    i = gtid(b)
    v = b.cvt(i, elem)
    old = b.reg(elem)
    b.emit(Op.ATOM, (old,), (b.binary(Op.REM, i, b.imm(3, I32)), v), AtomArg(acc, op))
    b.emit(Op.ST, (), (i, old), out)
    b.ret()
    fn = Function("a", [ArrayParam("out", out), ArrayParam("acc", acc)], b.blocks)
    o, a = np.zeros(96, elem.np), np.zeros(3, elem.np)
    run(fn, cfg(96), [arg(o), arg(a, "acc")])
    for r in range(3):
        lanes = np.arange(r, 96, 3)
        cur = elem.np.type(0)
        for lane in lanes:
            assert o[lane] == cur
            cur = {AtomOp.ADD: cur + lane, AtomOp.MAX: max(cur, lane), AtomOp.EXCH: lane}[op]
        assert a[r] == cur


def test_suite_in_both_execution_modes():
    """Dense and compact stepping are a speed choice only: every suite case must agree."""
    from simt import suite
    for case in suite.CASES:
        suite.run_case(case, "small", device="cpu:precise").check()


def test_copy_of_a_register_overwritten_later_in_the_block():
    """k = i; i = i - 2; last = k: last must get i's old value (no aliasing in write-back)."""
    b = Builder(LOC)
    out = array("out")
    entry, body, exit_ = b.new_block("entry"), b.new_block("body"), b.new_block("exit")
    b.set_block(entry)
    g = gtid(b)
    it = b.mov(b.binary(Op.ADD, g, b.imm(10, I32)))
    k = b.reg(I32, "k")
    last = b.reg(I32, "last")
    b.br(body)
    b.set_block(body)
    b.mov(it, k)
    b.mov(b.binary(Op.SUB, it, b.imm(2, I32)), it)
    b.mov(k, last)
    b.cbr(b.compare(Op.GT, it, g), body, exit_)
    b.set_block(exit_)
    b.emit(Op.ST, (), (g, last), out)
    b.ret()
    data = np.zeros(64, np.int32)
    run(Function("alias", [ArrayParam("out", out)], b.blocks), cfg(64), [arg(data)])
    assert (data == np.arange(64) + 2).all()
