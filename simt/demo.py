"""``simt demo``: a showcase on the CPU engines (a divergent kernel, a shared-memory
reduction, a transpose with and without bank conflicts), each checked against numpy and
shown with its launch metrics. Kept out of simt/cli.py so that the command line imports
the kernel suite only when the demo runs."""
from __future__ import annotations

import numpy as np

import simt
from simt.suite.cuda_style import block_sum_shared   # the suite's shared-memory tree reduction

BLOCK = 256


@simt.kernel
def branchy(x: simt.array(dtype=float), out: simt.array(dtype=float)):
    """Half of each warp takes each side of the branch: divergence the metrics will show."""
    i = simt.tid()
    if i % 2 == 0:
        out[i] = x[i] * x[i]
    else:
        out[i] = -x[i]


_SHOWN = (("warp instructions", "smsp__inst_executed.sum", "{:.0f}"),
          ("thread instructions", "smsp__thread_inst_executed.sum", "{:.0f}"),
          ("branch efficiency", "smsp__sass_average_branch_targets_threads_uniform.pct", "{:.1f} %"),
          ("divergent branch targets", "smsp__sass_branch_targets_threads_divergent.sum", "{:.0f}"),
          ("predicted cycles", "sm__cycles_elapsed.max", "{:.0f}"))


def _print_metrics(result: simt.LaunchResult) -> None:
    m = result.metrics
    for label, key, fmt in _SHOWN:
        if key in m:
            print(f"    {label:<26}{fmt.format(m[key])}")
    inst, thread_inst = m.get("smsp__inst_executed.sum"), m.get("smsp__thread_inst_executed.sum")
    if inst:
        print(f"    {'warp execution efficiency':<26}{100.0 * thread_inst / inst / 32:.1f} %")
    s = result.details.get("sampling")
    if s and (s["sms"] < s["of_sms"] or s["blocks"] < s["of_blocks"]):
        print(f"    {'cycles replayed on':<26}{s['sms']} of {s['of_sms']} SMs, {s['blocks']:,} of "
              f"{s['of_blocks']:,} blocks (estimated error {s['error_pct']:.1f} %)")
    _print_bottleneck(result)


def _print_bottleneck(result: simt.LaunchResult) -> None:
    limit = result.details.get("bottleneck")
    if limit:
        print(f"    {'limited by':<26}{limit['limiter']}: {limit['why']}")


def _check(name: str, got: np.ndarray, expected: np.ndarray) -> bool:
    ok = bool(np.allclose(got, expected, rtol=1e-5, atol=1e-5))
    print(f"  {name}: {'matches numpy' if ok else 'DIFFERS from numpy'}")
    if not ok:
        print(f"    got      {got[:8]}\n    expected {expected[:8]}")
    return ok


def demo() -> int:
    device = "cpu:precise"
    print(f"simt {simt.__version__} demo on '{device}' (a simulated GPU: warps of 32 lanes)\n")
    rng = np.random.default_rng(0)
    n = 1024
    x = rng.uniform(-1.0, 1.0, n).astype(np.float32)

    print(f"1. branchy: even threads square, odd threads negate ({n} threads)")
    xs, out = simt.array(x), simt.zeros(n)
    result = simt.launch(branchy, dim=n, inputs=[xs], outputs=[out], device=device, block_dim=BLOCK)
    expected = np.where(np.arange(n) % 2 == 0, x * x, -x)
    ok = _check("results", out.numpy(), expected)
    _print_metrics(result)

    print(f"\n2. block_sum: shared-memory tree reduction, {n // BLOCK} blocks of {BLOCK} threads")
    sums = simt.zeros(n // BLOCK)
    result = simt.launch(block_sum_shared, dim=n, inputs=[xs, n], outputs=[sums], device=device,
                         block_dim=BLOCK)
    ok &= _check("per-block sums", sums.numpy(), x.reshape(-1, BLOCK).sum(axis=1))
    _print_metrics(result)

    print("\n3. transpose of 1024x1024 through a 32x32 shared tile, then with the tile padded to 32x33")
    ok &= _transpose_story(rng)

    print(f"\n4. the same kernels on 'cpu' (the fast engine, compiled with numba; the first "
          f"run compiles)")
    out_fast, sums_fast = simt.zeros(n), simt.zeros(n // BLOCK)
    simt.launch(branchy, dim=n, inputs=[xs], outputs=[out_fast], device="cpu", block_dim=BLOCK)
    simt.launch(block_sum_shared, dim=n, inputs=[xs, n], outputs=[sums_fast], device="cpu",
                block_dim=BLOCK)
    same = (out_fast.numpy() == out.numpy()).all() and (sums_fast.numpy() == sums.numpy()).all()
    print(f"  results: {'identical to cpu:precise' if same else 'DIFFER from cpu:precise'}")
    ok &= bool(same)

    print("\nInspect the compiled code with simt.mir(kernel) or simt.ptx(kernel); record a trace "
          "with device='cpu:trace'; see README.md.")
    return 0 if ok else 1


def _transpose_story(rng) -> bool:
    from simt.suite.cuda_style import transpose_tile, transpose_tile_padded
    n = 1024
    src = rng.standard_normal((n, n)).astype(np.float32)
    ok = True
    for kernel, label in ((transpose_tile, "32x32 tile"), (transpose_tile_padded, "32x33 tile")):
        a, b = simt.array(src), simt.zeros((n, n))
        r = simt.launch(kernel, dim=(n // 4, n), inputs=[a, b], block_dim=(8, 32), device="cpu:precise")
        good = bool((b.numpy() == src.T).all())
        ok &= good
        m = r.metrics
        stalls = ", ".join(f"{k} {v:.0f}" for k, v in r.stalls.items() if round(v))
        print(f"  {label}: {'matches numpy' if good else 'DIFFERS from numpy'}; shared-load wavefronts "
              f"{m['l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum']}, bank conflicts "
              f"{m['l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum']}, "
              f"predicted {r.cycles} cycles")
        print(f"    stall cycles by reason: {stalls}")
        _print_bottleneck(r)
    return ok
