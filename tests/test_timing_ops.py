"""What single operations cost in the timing model, against facts measured apart from it.

- A float-to-int conversion is one F2I on the XU pipe (benchmarks/timing/conv_tput.cu on the
  H200: 8.23 cycles a warp instruction per scheduler), an int-to-float one I2FP on the FMA pipe
  (1.05). A kernel of independent conversions is bound by that pipe, and the first kind takes
  several times as long as the second.
- 64-bit integer division is a subroutine ptxas calls (about 70-100 SASS instructions on the
  H200: probes5 in benchmarks/timing/data/h200), unlike 32-bit division by a register (an
  inline sequence of about 25), so a loop of 64-bit remainders takes longer than the same loop
  in 32 bits (the probes' counts: 71 SASS instructions an unsigned 64-bit remainder, 24 a
  32-bit one).
- The ALU pipe (logic, shifts, compares, selects, three-input adds) takes a warp instruction
  every other cycle on the H200, the FMA pipe one a cycle (benchmarks/timing/pipe_mix.cu:
  LOP3 alone 1.94 cycles an instruction per scheduler, FFMA 1.00), and ptxas puts adds on the
  FMA pipe as VIADD or IMAD.IADD, so a loop of logic runs about twice as long as the same
  number of float multiply-adds, and one of an add beside each logic op about as fast (1.07).
  Two logic ops on three operands are one LOP3.
"""
import numpy as np
import pytest

import simt as wp
from simt.sim.timing import isa

N = 132 * 4 * 256          # four blocks of 256 on every SM of the H200


@wp.kernel
def f2i_chains(x: wp.array(dtype=float), n: int, out: wp.array(dtype=int)):
    i = wp.tid()
    a = x[i]
    s = int(0)
    for k in range(n):
        # independent conversions: each iteration's four do not wait on one another
        s = s + int(a) + int(a + 1.0) + int(a + 2.0) + int(a + 3.0)
        a = a + 0.5
    out[i] = s


@wp.kernel
def i2f_chains(x: wp.array(dtype=int), n: int, out: wp.array(dtype=float)):
    i = wp.tid()
    a = x[i]
    s = float(0.0)
    for k in range(n):
        s = s + float(a) + float(a + 1) + float(a + 2) + float(a + 3)
        a = a + 5
    out[i] = s


def test_float_to_int_conversions_are_bound_by_the_xu_pipe():
    n = 32
    f2i = wp.launch(f2i_chains, N, [wp.array(np.linspace(0, 9, N, dtype=np.float32)), n, wp.zeros(N, dtype=int)],
                    block_dim=256)
    i2f = wp.launch(i2f_chains, N, [wp.array(np.arange(N, dtype=np.int32)), n, wp.zeros(N, dtype=float)],
                    block_dim=256)
    assert f2i.details["bottleneck"]["limiter"] == "mufu"
    assert i2f.details["bottleneck"]["limiter"] != "mufu"
    # 8.23 against 1.05 cycles a conversion per scheduler on the H200; the rest of each loop
    # (adds, the loop's control) and the launch are the same in both
    assert f2i.metrics["smsp__inst_executed.sum"] == i2f.metrics["smsp__inst_executed.sum"]
    assert f2i.cycles > 1.3 * i2f.cycles


@wp.kernel
def rem_u64(x: wp.array(dtype=wp.uint64), m: wp.uint64, n: int, out: wp.array(dtype=wp.uint64)):
    i = wp.tid()
    v = x[i]
    for k in range(n):
        v = (v * wp.uint64(48271)) % m
    out[i] = v


@wp.kernel
def rem_u32(x: wp.array(dtype=wp.uint32), m: wp.uint32, n: int, out: wp.array(dtype=wp.uint32)):
    i = wp.tid()
    v = x[i]
    for k in range(n):
        v = (v * wp.uint32(48271)) % m
    out[i] = v


def _cycles(kernel, dtype, wdtype, m, n):
    x = wp.array(np.arange(1, N + 1, dtype=dtype), dtype=wdtype)
    return wp.launch(kernel, N, [x, dtype(m), n, wp.zeros(N, dtype=wdtype)], block_dim=256)


def test_64_bit_remainders_cost_the_subroutine_not_one_instruction():
    u64 = [_cycles(rem_u64, np.uint64, wp.uint64, 2147483647, n) for n in (8, 24)]
    u32 = [_cycles(rem_u32, np.uint32, wp.uint32, 65521, n) for n in (8, 24)]
    assert u64[1].details["bottleneck"]["limiter"] in ("issue", "alu")
    # per 16 iterations, launch and loop exit cancelled: the 64-bit routine issues about three
    # times the 32-bit sequence's instructions (probes5: 71 a remainder against 24)
    assert u64[1].cycles - u64[0].cycles > 2.0 * (u32[1].cycles - u32[0].cycles)


def test_64_bit_division_keys_by_signedness_and_divisor():
    from simt.ir.mir import Op

    @wp.kernel
    def k(a: wp.array(dtype=wp.int64), b: wp.array(dtype=wp.uint64)):
        i = wp.tid()
        a[i] = a[i] % a[i + 1] + a[i] / wp.int64(7) + a[i] / wp.int64(8)
        b[i] = b[i] % b[i + 1]

    from simt.kernel import LaunchSig
    fn = k.compile(LaunchSig(1, 1))
    keys = {isa.op_key(ins) for blk in fn.blocks for ins in blk.instrs if ins.op in (Op.DIV, Op.REM)}
    assert {"REM.i64", "DIV.i64.const", "DIV.i64.pow2", "REM.u64"} <= keys
    from simt.arch import load_arch
    ops = load_arch("sm_90").data["timing"]["ops"]
    assert all(k in ops for k in keys)


@wp.kernel
def logic_chains(x: wp.array(dtype=int), c: int, d: int, n: int, out: wp.array(dtype=int)):
    i = wp.tid()
    a = x[i]
    b = a + 1
    e = a + 2
    f = a + 3
    for k in range(n):
        a = (a & c) ^ d
        b = (b & c) ^ d
        e = (e & c) ^ d
        f = (f & c) ^ d
    out[i] = a ^ b ^ e ^ f


@wp.kernel
def add_logic_chains(x: wp.array(dtype=int), c: int, d: int, n: int, out: wp.array(dtype=int)):
    i = wp.tid()
    a = x[i]
    b = a + 1
    e = a + 2
    f = a + 3
    for k in range(n):
        a = (a + c) ^ d
        b = (b + c) ^ d
        e = (e + c) ^ d
        f = (f + c) ^ d
    out[i] = a ^ b ^ e ^ f


@wp.kernel
def fma_chains(x: wp.array(dtype=float), c: float, d: float, n: int, out: wp.array(dtype=float)):
    i = wp.tid()
    a = x[i]
    b = a + 1.0
    e = a + 2.0
    f = a + 3.0
    for k in range(n):
        a = a * c + d
        b = b * c + d
        e = e * c + d
        f = f * c + d
    out[i] = a + b + e + f


def _chains(kernel, n=512):
    if kernel is fma_chains:
        args = [wp.array(np.linspace(0, 1, N, dtype=np.float32)), 0.999, 0.001, n, wp.zeros(N, dtype=float)]
    else:
        args = [wp.array(np.arange(N, dtype=np.int32)), 0x5F3759DF, 0x2D, n, wp.zeros(N, dtype=int)]
    return wp.launch(kernel, N, args, block_dim=256)


def _per_instruction(r):
    return r.cycles / r.metrics["smsp__inst_issued.sum"]


def test_a_loop_of_logic_is_bound_by_the_alu_pipe_at_half_the_fma_rate():
    logic, fma = _chains(logic_chains), _chains(fma_chains)
    assert logic.details["bottleneck"]["limiter"] == "alu"
    assert fma.details["bottleneck"]["limiter"] != "alu"
    # the H200 runs LOP3s at 1.94 cycles an instruction per scheduler, FFMAs at 1.00
    assert _per_instruction(logic) > 1.5 * _per_instruction(fma)


def test_two_logic_ops_on_three_operands_issue_one_lop3():
    logic, mixed = _chains(logic_chains), _chains(add_logic_chains)
    # (a & c) ^ d is one LOP3 (pipe_mix.cu k_lop3's SASS); (a + c) ^ d an add and a LOP3
    assert logic.metrics["smsp__inst_issued.sum"] < 0.7 * mixed.metrics["smsp__inst_issued.sum"]


def test_adds_beside_logic_share_the_work_with_the_fma_pipe():
    logic, mixed = _chains(logic_chains), _chains(add_logic_chains)
    # VIADD and LOP3 on two pipes: 1.07 cycles an instruction on the H200, against 1.94 for LOP3s alone
    assert _per_instruction(mixed) < 0.75 * _per_instruction(logic)


def test_add_op_takes_either_pipe_and_a_constant_shift_its_own_key():
    from simt.arch import load_arch
    ops = load_arch("sm_90").data["timing"]["ops"]
    assert ops["ADD.i32"][2] == "alu|imad" and ops["XOR.i32"][2] == "alu"
    assert load_arch("sm_80").data["timing"]["ops"]["ADD.i32"][2] == "alu"     # no VIADD before sm_90
    pipe, alt, busy = [isa.PIPES.index("alu")] * 3, [-1, isa.PIPES.index("imad"), -1], [1.0, 1.0, 1.0]
    isa.balance(pipe, alt, busy, [1.0, 2.0, 2.0, 2.0, 8.0, 4.0, 1.0])
    assert pipe[1] == isa.PIPES.index("imad")          # the ALU already has two of the block's ops
