"""Renaming block-local values and list scheduling: loads issue early, semantics kept."""
import numpy as np

import simt as wp
from simt.ir.compile import compile_kernel
from simt.ir.mir import LaunchSig, Op
from simt.suite.cuda_style import transpose_tile


def test_unrolled_transpose_loads_issue_back_to_back():
    fn = compile_kernel(transpose_tile.py_func, LaunchSig(2, 2))
    body = next(b for b in fn.blocks if sum(i.op is Op.LD for i in b.instrs) == 4)
    ops = [i.op for i in body.instrs]
    loads = [k for k, op in enumerate(ops) if op is Op.LD]
    first_store = ops.index(Op.ST)
    assert max(loads) < first_store          # all four global loads before the first store
    # four distinct destination registers: the copies no longer share one
    assert len({body.instrs[k].dsts[0].id for k in loads}) == 4


def test_scheduling_keeps_memory_order_within_a_space():
    @wp.kernel
    def swap(a: wp.array(dtype=int)):
        x = a[0]
        a[0] = a[1]
        a[1] = x
        y = a[0]
        a[2] = y
    a = wp.array(np.array([1, 2, 0], dtype=np.int32))
    for device in ("cpu:precise", "cpu"):
        a = wp.array(np.array([1, 2, 0], dtype=np.int32))
        wp.launch(swap, 1, [a], device=device)
        assert a.numpy().tolist() == [2, 1, 2]


def test_scheduling_gives_memory_level_parallelism_in_the_timing_model():
    from simt import suite
    r = suite.run_case(suite.get("transpose_tile_padded"), "small", device="cpu:precise").result
    per_warp = int(r.details["block_cycles"].max())
    assert per_warp < 2 * 600 + 500      # four DRAM loads overlap instead of 4 x 600 cycles
