"""The timing issue's mat-vec pair on cpu:precise, with loops replayed in ptxas's order and in
program order: a column walk (thread i reads column i: coalesced) against a row walk (thread
i reads row i), 4096x4096 floats, 4096 threads in 16 blocks of 256, and column sums of the
same shape. The H200 runs the row walk 1.20x slower than the column walk
(data/h200/loops.csv).

    PYTHONPATH=. python3 benchmarks/timing/matvec_pair.py [n] [--more]

``--more`` adds naive GEMM (256 and 512, A @ A, 16x16 blocks) and CSR SpMV (16,384 rows of
64 random nonzeros); ``--gpu`` runs every launch once on the GPU for Nsight Compute (what
data/h200/loops.csv holds).
"""
from __future__ import annotations

import sys

import numpy as np

import simt as wp


@wp.kernel
def matvec_col(A: wp.array(dtype=float), x: wp.array(dtype=float), y: wp.array(dtype=float), n: int):
    i = wp.tid()
    s = float(0.0)
    for k in range(n):
        s += A[k * n + i] * x[k]
    y[i] = s


@wp.kernel
def matvec_row(A: wp.array(dtype=float), x: wp.array(dtype=float), y: wp.array(dtype=float), n: int):
    i = wp.tid()
    s = float(0.0)
    for k in range(n):
        s += A[i * n + k] * x[k]
    y[i] = s


@wp.kernel
def column_sums(A: wp.array(dtype=float), y: wp.array(dtype=float), n: int):
    j = wp.tid()
    s = float(0.0)
    for i in range(n):
        s += A[i * n + j]
    y[j] = s


@wp.kernel
def gemm_naive(A: wp.array2d(dtype=float), B: wp.array2d(dtype=float), C: wp.array2d(dtype=float)):
    i, j = wp.tid()
    s = float(0.0)
    for k in range(A.shape[1]):
        s += A[i, k] * B[k, j]
    C[i, j] = s


@wp.kernel
def spmv_csr(rowp: wp.array(dtype=int), col: wp.array(dtype=int), val: wp.array(dtype=float),
             x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    s = float(0.0)
    for j in range(rowp[i], rowp[i + 1]):
        s += val[j] * x[col[j]]
    y[i] = s


def more_launches(rng):
    """(name, kernel, dim, inputs, block): naive GEMM and CSR SpMV (64 random nonzeros a row)."""
    out = []
    for n in (256, 512):
        a = wp.array(rng.random((n, n), dtype=np.float32))     # A @ A, as measured
        out.append((f"gemm_naive@{n}", gemm_naive, (n, n), [a, a, wp.zeros((n, n))], (16, 16)))
    rows, nnz = 16384, 64
    args = [wp.array((np.arange(rows + 1) * nnz).astype(np.int32)),
            wp.array(rng.integers(0, rows, rows * nnz).astype(np.int32)),
            wp.array(rng.random(rows * nnz, dtype=np.float32)), wp.array(rng.random(rows, dtype=np.float32)),
            wp.zeros(rows)]
    out.append(("spmv_csr@16K", spmv_csr, rows, args, 256))
    return out


def gpu(n: int = 4096) -> None:
    """Each launch once on the GPU, for Nsight Compute:
    ncu --clock-control none --csv --metrics sm__cycles_elapsed.max python3 matvec_pair.py --gpu"""
    rng = np.random.default_rng(0)
    A = wp.array(rng.random(n * n, dtype=np.float32), device="cuda")
    x = wp.array(rng.random(n, dtype=np.float32), device="cuda")
    for kernel, inputs in ((matvec_col, [A, x, wp.zeros(n, device="cuda"), n]),
                           (matvec_row, [A, x, wp.zeros(n, device="cuda"), n]),
                           (column_sums, [A, wp.zeros(n, device="cuda"), n])):
        wp.launch(kernel, dim=n, inputs=inputs, block_dim=256, device="cuda")
        wp.synchronize()
        print(kernel.key, flush=True)
    for name, kernel, dim, inputs, block in more_launches(rng):
        inputs = [v.to("cuda") if hasattr(v, "to") else v for v in inputs]
        wp.launch(kernel, dim=dim, inputs=inputs, block_dim=block, device="cuda")
        wp.synchronize()
        print(name, flush=True)


def main(n: int = 4096, more: bool = False) -> None:
    rng = np.random.default_rng(0)
    A = wp.array(rng.random(n * n, dtype=np.float32))
    x = wp.array(rng.random(n, dtype=np.float32))
    launches = {"matvec_col": (matvec_col, lambda: [A, x, wp.zeros(n), n]),
                "matvec_row": (matvec_row, lambda: [A, x, wp.zeros(n), n]),
                "column_sums": (column_sums, lambda: [A, wp.zeros(n), n])}
    cycles = {}
    print(f"{'kernel':<13} {'replay':<14} {'cycles':>11}  loops (MIR block, unroll, SASS loads before first use)")
    for sass in (True, False):
        wp.set_module_options({"timing_sass": sass})
        for name, (kernel, inputs) in launches.items():
            r = wp.launch(kernel, dim=n, inputs=inputs(), block_dim=256, device="cpu:precise")
            s = r.details["timing_schedule"]
            cycles[name, sass] = r.cycles
            loops = [(g["block"], g["unroll"], g["loads_in_flight"]) for g in s["loops"]]
            print(f"{name:<13} {s['replay']:<14} {r.cycles:>11,}  {loops}", flush=True)
        for name, kernel, dim, inputs, block in (more_launches(np.random.default_rng(1)) if more else ()):
            r = wp.launch(kernel, dim=dim, inputs=inputs, block_dim=block, device="cpu:precise")
            s = r.details["timing_schedule"]
            loops = [(g["block"], g["unroll"], g["loads_in_flight"]) for g in s["loops"]]
            print(f"{name:<13} {s['replay']:<14} {r.cycles:>11,}  {loops}", flush=True)
    wp.set_module_options({"timing_sass": True})
    for sass in (True, False):
        print(f"row / column walk, {'SASS order' if sass else 'program order'}: "
              f"{cycles['matvec_row', sass] / cycles['matvec_col', sass]:.2f} (H200: 1.20)")


if __name__ == "__main__":
    if "--gpu" in sys.argv:
        gpu()
    else:
        sizes = [a for a in sys.argv[1:] if a.isdigit()]
        main(int(sizes[0]) if sizes else 4096, "--more" in sys.argv)
