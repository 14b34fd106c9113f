"""A user script for ``simt run``: it launches the unpadded tile transpose naming no device,
so ``simt run --trace out.jsonl.gz traces/transpose_example.py`` records it on cpu:trace."""
import numpy as np

import simt
from simt.suite.cuda_style import transpose_tile

src = np.arange(64 * 64, dtype=np.float32).reshape(64, 64)
a = simt.array(src, dtype=simt.float32)
b = simt.array(np.zeros_like(src), dtype=simt.float32)
result = simt.launch(transpose_tile, dim=(16, 64), inputs=[a, b], block_dim=(8, 32))
assert np.array_equal(b.numpy(), src.T)
print(f"transpose_tile on {result.device}: {result.cycles} cycles, "
      f"{result['l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum']:.0f} bank conflicts")
