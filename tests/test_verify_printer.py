"""The MIR verifier (one bad function per rule), the CFG helpers and the printer."""
from __future__ import annotations

import pytest

from simt.ir import cfg
from simt.ir.builder import Builder
from simt.ir.mir import (ArrayParam, AtomArg, AtomOp, CheckArg, DimArg, Function, Imm, Instr,
                         LaunchSig, Loc, MemRef, Op, ScalarParam, ShflMode, Space, SReg, VoteMode)
from simt.ir.printer import format_function, format_instr
from simt.ir.types import Scalar
from simt.ir.verify import MirVerifyError, verify

F32, I32, U32, I64, U8, BOOL = Scalar.F32, Scalar.I32, Scalar.U32, Scalar.I64, Scalar.U8, Scalar.BOOL


def saxpy():
    """A small valid kernel: shared tile, a diamond, a barrier, loads and stores.

    Returns (function, builder, named pieces) so tests can break one thing at a time.
    """
    b = Builder(Loc("/src/saxpy.py", 5, 4, "saxpy"))
    x = MemRef("x", Space.GLOBAL, F32, 1)
    y = MemRef("y", Space.GLOBAL, F32, 1)
    tile = MemRef("tile", Space.SHARED, F32, 2, shape=(32, 33), offset=0)
    a = b.reg(F32, "a")
    entry, then, other, join = (b.new_block("bb"), b.new_block("then"), b.new_block("else"),
                                b.new_block("bb"))
    b.set_block(entry)
    i = b.reg(I32, "i")
    b.emit(Op.SREG, (i,), arg=SReg.CTAID_X)
    v = b.reg(F32)
    b.emit(Op.LD, (v,), (i,), x)
    p = b.compare(Op.LT, i, Imm(10, I32))
    b.cbr(p, then, other)
    b.set_block(then)
    w = b.binary(Op.MUL, a, v)
    b.emit(Op.ST, srcs=(i, w), arg=tile)
    b.br(join)
    b.set_block(other)
    b.emit(Op.ST, srcs=(i, v), arg=tile)
    b.br(join)
    b.set_block(join)
    b.emit(Op.BAR)
    t = b.reg(F32)
    b.emit(Op.LD, (t,), (i,), tile)
    b.emit(Op.ST, srcs=(i, t), arg=y)
    b.ret()
    fn = Function("saxpy", [ScalarParam("a", a), ArrayParam("x", x), ArrayParam("y", y)],
                  b.blocks, shared=[tile], launch=LaunchSig(1, 1))
    return fn, b, dict(a=a, i=i, v=v, p=p, x=x, y=y, tile=tile, entry=entry, then=then,
                       other=other, join=join)


def broken(mutate):
    fn, b, parts = saxpy()
    mutate(fn, b, parts)
    return fn


def expect(fn, pattern):
    with pytest.raises(MirVerifyError, match=pattern):
        verify(fn)


def insert(block, index, ins):
    block.instrs.insert(index, ins)


# --- the valid kernel ---------------------------------------------------------------------------

def test_valid_kernel_verifies():
    fn, _, _ = saxpy()
    verify(fn)


def test_printer_output():
    fn, _, _ = saxpy()
    text = format_function(fn)
    lines = text.splitlines()
    assert lines[0] == ("kernel saxpy(%a1:f32, @x: global f32[1d], @y: global f32[1d]) "
                        "launch(dim=1d, block=1d)")
    assert lines[1] == "  shared @tile: f32[32,33] row_major +0"
    assert lines[2] == "bb0:"
    assert lines[3].startswith("  %i2:i32 = sreg ctaid.x") and lines[3].endswith("; saxpy.py:5")
    body = format_function(fn, with_loc=False)
    assert "  %r3:f32 = ld.global @x[%i2]\n" in body
    assert "  %r4:bool = lt %i2, 10:i32\n" in body
    assert "  cbr %r4, then0, else0\n" in body
    assert "  st.shared @tile[%i2], %r5\n" in body
    assert "  bar\n" in body and "  ret\n" in body
    assert format_function(saxpy()[0]) == text      # stable across builds


def test_format_instr_variants():
    m = MemRef("h", Space.GLOBAL, I32, 1)
    r, s = Builder().reg(I32), Builder().reg(I32)
    assert format_instr(Instr(Op.ATOM, (r,), (s, Imm(1, I32)), AtomArg(m, AtomOp.ADD))) == \
        "%r1:i32 = atom.global.add @h[%r1], 1:i32"
    assert format_instr(Instr(Op.SHFL, (r,), (s, Imm(1, I32), Imm(0xFFFFFFFF, U32)),
                              ShflMode.DOWN)) == "%r1:i32 = shfl.down %r1, 1:i32, 4294967295:u32"
    assert format_instr(Instr(Op.CVT, (Builder().reg(F32),), (s,))) == "%r1:f32 = cvt.f32.i32 %r1"
    assert format_instr(Instr(Op.DIM, (r,), (), DimArg(m, 0))) == "%r1:i32 = dim @h, 0"


# --- instruction rules ----------------------------------------------------------------------------

def test_binary_types_must_agree():
    def bad(fn, b, p):
        d = b.reg(F32)
        insert(p["then"], 0, Instr(Op.ADD, (d,), (p["a"], p["i"])))
    expect(broken(bad), r"block then0, instruction 0 `%r\d+:f32 = add %a1, %i2`: ADD sources")


@pytest.mark.parametrize("op, t, msg", [(Op.SQRT, I32, "float type"), (Op.FLOOR, I32, "float"),
                                        (Op.NOT, F32, "integer or bool"),
                                        (Op.NEG, BOOL, "does not take bool")])
def test_unary_type_classes(op, t, msg):
    def bad(fn, b, p):
        src = b.reg(t)
        insert(p["entry"], 0, Instr(Op.MOV, (src,), (Imm(True if t is BOOL else 1.0 if t is F32 else 1, t),)))
        insert(p["entry"], 1, Instr(op, (b.reg(t),), (src,)))
    expect(broken(bad), msg)


@pytest.mark.parametrize("op, t, msg", [(Op.SHL, F32, "integer type"), (Op.AND, F32, "integer or bool"),
                                        (Op.POW, I32, "float type"), (Op.ADD, BOOL, "bool")])
def test_binary_type_classes(op, t, msg):
    def bad(fn, b, p):
        val = Imm(True, t) if t is BOOL else Imm(1.0 if t is F32 else 1, t)
        insert(p["entry"], 0, Instr(op, (b.reg(t),), (val, val)))
    expect(broken(bad), msg)


def test_compare_and_select_rules():
    expect(broken(lambda fn, b, p: insert(p["entry"], 1, Instr(Op.LT, (b.reg(I32),), (p["i"], p["i"])))),
           "writes bool")
    expect(broken(lambda fn, b, p: insert(p["entry"], 1, Instr(Op.EQ, (b.reg(BOOL),), (p["i"], Imm(1.0, F32))))),
           "share one type")
    expect(broken(lambda fn, b, p: insert(p["entry"], 1, Instr(Op.SELECT, (b.reg(I32),), (p["i"], p["i"], p["i"])))),
           "condition must be bool")
    expect(broken(lambda fn, b, p: insert(p["entry"], 1, Instr(Op.MOV, (b.reg(F32),), (p["i"],)))),
           "MOV changes type")


def test_memory_rules():
    def ld(dsts, idx, arg):
        return lambda fn, b, p: insert(p["entry"], 1, Instr(Op.LD, dsts(b), (idx(p),), arg(p)))
    expect(broken(ld(lambda b: (b.reg(F32),) * 3, lambda p: p["i"], lambda p: p["x"])), "1 or 2 or 4")
    expect(broken(ld(lambda b: (b.reg(F32),), lambda p: p["a"], lambda p: p["x"])), "index must be an integer")
    expect(broken(ld(lambda b: (b.reg(I32),), lambda p: p["i"], lambda p: p["x"])), "element type")
    expect(broken(ld(lambda b: (b.reg(F32),), lambda p: p["i"], lambda p: "x")), "MemRef")
    expect(broken(ld(lambda b: (b.reg(F32),), lambda p: p["i"],
                     lambda p: MemRef("z", Space.GLOBAL, F32, 1))), "neither a parameter")
    expect(broken(lambda fn, b, p: insert(p["then"], 0, Instr(Op.ST, (), (p["i"], p["i"]), p["x"]))),
           "ST values")
    cas = AtomArg(MemRef("x", Space.GLOBAL, F32, 1), AtomOp.CAS)
    expect(broken(lambda fn, b, p: insert(p["entry"], 1, Instr(Op.ATOM, (b.reg(F32),), (p["i"], p["v"]), cas))),
           "3 source")
    dim = DimArg(MemRef("x", Space.GLOBAL, F32, 1), 1)
    expect(broken(lambda fn, b, p: insert(p["entry"], 1, Instr(Op.DIM, (b.reg(I32),), (), dim))),
           "out of range")


def test_execution_model_rules():
    expect(broken(lambda fn, b, p: insert(p["entry"], 0, Instr(Op.SREG, (b.reg(I32),), (), SReg.CLOCK))),
           "clock64 is int64")
    full = Imm(0xFFFFFFFF, U32)
    expect(broken(lambda fn, b, p: insert(p["entry"], 1, Instr(Op.SHFL, (b.reg(F32),), (p["v"], Imm(1, U32), full), ShflMode.IDX))),
           "lane/delta must be i32")
    expect(broken(lambda fn, b, p: insert(p["entry"], 1, Instr(Op.SHFL, (b.reg(F32),), (p["v"], Imm(1, I32), Imm(-1, I32)), ShflMode.IDX))),
           "mask must be u32")
    expect(broken(lambda fn, b, p: insert(p["entry"], 3, Instr(Op.SHFL, (b.reg(BOOL),), (p["p"], Imm(1, I32), full), ShflMode.IDX))),
           "32- or 64-bit")
    expect(broken(lambda fn, b, p: insert(p["entry"], 3, Instr(Op.VOTE, (b.reg(BOOL),), (p["p"], full), VoteMode.BALLOT))),
           "writes uint32")
    expect(broken(lambda fn, b, p: insert(p["entry"], 1, Instr(Op.CHECK, (), (p["i"], Imm(3, I64)), CheckArg(p["x"], 0)))),
           "CHECK compares")
    expect(broken(lambda fn, b, p: insert(p["entry"], 1, Instr(Op.SYNCWARP, (), (Imm(1, I32),)))),
           "SYNCWARP mask must be u32")


def test_barrier_must_start_its_block():
    def bad(fn, b, p):
        p["join"].instrs.insert(1, Instr(Op.BAR))
    expect(broken(bad), "BAR must be the first instruction")


# --- structure -----------------------------------------------------------------------------------

def test_block_structure_rules():
    expect(broken(lambda fn, b, p: p["then"].instrs.pop()), "does not end in a terminator")
    expect(broken(lambda fn, b, p: insert(p["then"], 0, Instr(Op.RET))), "terminator before the end")
    expect(broken(lambda fn, b, p: setattr(p["then"].instrs[-1], "arg", "nowhere")), "unknown block 'nowhere'")
    expect(broken(lambda fn, b, p: setattr(p["other"], "label", "then0")), "label 'then0' used twice")
    expect(broken(lambda fn, b, p: p["other"].instrs.clear()), "empty")


def test_register_rules():
    def retyped(fn, b, p):
        from simt.ir.mir import Reg
        clash = Reg(p["i"].id, F32, "i")
        insert(p["then"], 0, Instr(Op.MOV, (b.reg(F32),), (clash,)))
    expect(broken(retyped), "used as int32")

    def undefined(fn, b, p):
        ghost = b.reg(F32, "ghost")
        insert(p["then"], 0, Instr(Op.MOV, (b.reg(F32),), (ghost,)))
    expect(broken(undefined), "ghost")

    def defined_on_other_branch(fn, b, p):
        only_then = b.reg(F32, "t")
        insert(p["then"], 0, Instr(Op.MOV, (only_then,), (p["a"],)))
        insert(p["other"], 0, Instr(Op.MOV, (b.reg(F32),), (only_then,)))
    expect(broken(defined_on_other_branch), "never written before on any path")

    def defined_later(fn, b, p):
        late = b.reg(F32, "late")
        insert(p["entry"], 0, Instr(Op.MOV, (b.reg(F32),), (late,)))
        insert(p["entry"], 1, Instr(Op.MOV, (late,), (p["a"],)))
    expect(broken(defined_later), "late")


def test_defined_on_some_path_is_enough():
    fn, b, p = saxpy()
    maybe = b.reg(F32, "m")
    insert(p["then"], 0, Instr(Op.MOV, (maybe,), (p["a"],)))
    insert(p["join"], 1, Instr(Op.MOV, (b.reg(F32),), (maybe,)))
    verify(fn)


@pytest.mark.parametrize("imm", [Imm(300, U8), Imm(1e39, F32), Imm(1.5, I32), Imm(1, BOOL),
                                 Imm(2**31, I32), Imm(True, I32)])
def test_immediates_must_fit(imm):
    def bad(fn, b, p):
        insert(p["entry"], 0, Instr(Op.MOV, (b.reg(imm.type),), (imm,)))
    expect(broken(bad), "does not fit")


def test_immediates_that_fit():
    fn, b, p = saxpy()
    for imm in (Imm(255, U8), Imm(0.1, F32), Imm(float("inf"), F32), Imm(-2**31, I32),
                Imm(0xFFFFFFFF, U32), Imm(False, BOOL)):
        insert(p["entry"], 0, Instr(Op.MOV, (b.reg(imm.type),), (imm,)))
    verify(fn)


def test_shared_layout_rules():
    def misaligned(fn, b, p):
        fn.shared.append(MemRef("s2", Space.SHARED, F32, 1, shape=(4,), offset=32 * 33 * 4 + 2))
    expect(broken(misaligned), "not aligned")

    def overlapping(fn, b, p):
        fn.shared.append(MemRef("s2", Space.SHARED, F32, 1, shape=(4,), offset=64))
    expect(broken(overlapping), "overlap")

    fn, _, _ = saxpy()
    fn.shared.append(MemRef("s2", Space.SHARED, F32, 1, shape=(4,), offset=32 * 33 * 4))
    verify(fn)


# --- layout and CFG ------------------------------------------------------------------------------------

def test_layout_property_catches_join_before_branch_arm():
    def bad(fn, b, p):
        fn.blocks.remove(p["other"])
        fn.blocks.append(p["other"])    # else arm now after the join
    expect(broken(bad), "laid out after it")


def test_ipdom_of_diamond_and_exit():
    fn, _, p = saxpy()
    ip = cfg.ipdom(fn)
    assert ip == {"bb0": "bb1", "then0": "bb1", "else0": "bb1", "bb1": cfg.EXIT}
    assert cfg.postdominators(fn)["bb0"] == frozenset({"bb0", "bb1", cfg.EXIT})


def _loop(with_exit: bool):
    """bb0 -> head; head: cbr body/after; body: cbr a/b; a,b -> latch -> head; after: ret."""
    b = Builder()
    blocks = {n: b.new_block(n) for n in ("entry", "head", "body", "a", "b", "latch", "after")}
    c = b.reg(BOOL)
    b.set_block(blocks["entry"])
    b.emit(Op.MOV, (c,), (Imm(True, BOOL),))
    b.br(blocks["head"])
    b.set_block(blocks["head"])
    if with_exit:
        b.cbr(c, blocks["body"], blocks["after"])
    else:
        b.br(blocks["body"])
    b.set_block(blocks["body"])
    b.cbr(c, blocks["a"], blocks["b"])
    for arm in ("a", "b"):
        b.set_block(blocks[arm])
        b.br(blocks["latch"])
    b.set_block(blocks["latch"])
    b.br(blocks["head"])
    b.set_block(blocks["after"])
    b.ret()
    return Function("loop", [], b.blocks)


def test_ipdom_in_loops():
    fn = _loop(with_exit=True)
    verify(fn)
    ip = cfg.ipdom(fn)
    assert ip["head0"] == "after0" and ip["body0"] == "latch0" and ip["latch0"] == "head0"
    assert cfg.back_edges(fn) == {("latch0", "head0")}
    endless = _loop(with_exit=False)
    verify(endless)
    assert cfg.ipdom(endless)["body0"] == "latch0"
