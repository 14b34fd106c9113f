"""What will a shared-memory layout buy me? The same 32x32-tile transpose with the tile stored
row-major or column-major, unpadded or padded by one element per row, without touching the
index arithmetic: the results stay the same, the predicted bank conflicts and cycles change.

    python examples/shared_layout.py
"""
import numpy as np

import simt as wp

CONFLICTS = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_{}.sum"


def transpose(layout: str, pad: int):
    @wp.kernel
    def k(src: wp.array2d(dtype=float), dst: wp.array2d(dtype=float)):
        tile = wp.shared.array(shape=(32, 32), dtype=float, layout=layout, pad=pad)
        ty, tx = wp.thread_idx()
        by, bx = wp.block_idx()
        for r in range(0, 32, 8):
            tile[ty + r, tx] = src[by * 32 + ty + r, bx * 32 + tx]
        wp.sync_threads()
        for r in range(0, 32, 8):
            dst[bx * 32 + ty + r, by * 32 + tx] = tile[tx, ty + r]
    return k


def main() -> None:
    a = np.random.default_rng(0).random((1024, 1024), dtype=np.float32)
    print(f"{'layout':14}{'pad':>4}{'load conflicts':>16}{'store conflicts':>17}{'cycles':>9}  limited by")
    for layout in ("row_major", "column_major"):
        for pad in (0, 1):
            dst = wp.zeros((1024, 1024))
            r = wp.launch(transpose(layout, pad), dim=(256, 1024), inputs=[wp.array(a), dst],
                          block_dim=(8, 32))
            assert np.array_equal(dst.numpy(), a.T)
            print(f"{layout:14}{pad:>4}{int(r.metrics[CONFLICTS.format('ld')]):>16,}"
                  f"{int(r.metrics[CONFLICTS.format('st')]):>17,}{int(r.cycles):>9,}  "
                  f"{r.bottleneck['limiter']}")


if __name__ == "__main__":
    main()
