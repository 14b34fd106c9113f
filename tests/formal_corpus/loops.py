"""Corpus kernels with loops whose trip count is symbolic: grid-stride loops (written with
``range`` and as CUDA's while loop, the stride added, assigned or stored before the loop),
row sums and halving loops, with their seeded-bug mutants (catalogued in kernels.py)."""
import simt as wp

@wp.kernel
def strided_loop(n: int, x: wp.array(dtype=float)):
    i = wp.tid()
    for j in range(i, n, wp.grid_dim() * wp.block_dim()):
        x[j] = 0.0


@wp.kernel
def strided_loop_past_end(n: int, x: wp.array(dtype=float)):
    i = wp.tid()
    for j in range(i, n + 1, wp.grid_dim() * wp.block_dim()):
        x[j] = 0.0


@wp.kernel
def strided_scale(n: int, x: wp.array(dtype=float)):
    i = wp.tid()
    for j in range(i, n, wp.grid_dim() * wp.block_dim()):
        x[j] = x[j] * 2.0


@wp.kernel
def strided_scale_block_stride(n: int, x: wp.array(dtype=float)):
    i = wp.tid()
    for j in range(i, n, wp.block_dim()):
        x[j] = x[j] * 2.0


# the grid-stride loop as CUDA writes it: a while loop, the stride added at the end
@wp.kernel
def stride_while(x: wp.array(dtype=float), n: int):
    i = wp.tid()
    while i < n:
        x[i] = x[i] * 2.0
        i += wp.grid_dim() * wp.block_dim()


@wp.kernel
def stride_while_block(x: wp.array(dtype=float), n: int):
    i = wp.tid()
    while i < n:
        x[i] = x[i] * 2.0
        i += wp.block_dim()


@wp.kernel
def stride_while_assign(x: wp.array(dtype=float), n: int):
    i = wp.tid()
    while i < n:
        x[i] = x[i] + 1.0
        i = i + wp.grid_dim() * wp.block_dim()


@wp.kernel
def stride_while_assign_grid(x: wp.array(dtype=float), n: int):
    i = wp.tid()
    while i < n:
        x[i] = x[i] + 1.0
        i = i + wp.grid_dim()


@wp.kernel
def stride_while_assign_tail(x: wp.array(dtype=float), n: int):
    i = wp.tid()
    while i <= n:
        x[i] = x[i] + 1.0
        i = i + wp.grid_dim() * wp.block_dim()


@wp.kernel
def stride_while_stored(x: wp.array(dtype=float), y: wp.array(dtype=float), n: int):
    i = wp.tid()
    stride = wp.grid_dim() * wp.block_dim()
    while i < n:
        y[i] = y[i] + x[i]
        i += stride


@wp.kernel
def stride_while_stored_short(x: wp.array(dtype=float), y: wp.array(dtype=float), n: int):
    i = wp.tid()
    stride = wp.grid_dim() * wp.block_dim() - 1
    while i < n:
        y[i] = y[i] + x[i]
        i += stride


@wp.kernel
def stride_while_stored_shrinks(x: wp.array(dtype=float), y: wp.array(dtype=float), n: int):
    i = wp.tid()
    stride = wp.grid_dim() * wp.block_dim()
    while i < n:
        y[i] = y[i] + x[i]
        i += stride
        stride = wp.block_dim()


# the loop recomputes the grid stride, but only after its first step, a block's width:
# the candidate "i keeps its residue modulo the recomputed stride" must not survive
@wp.kernel
def stride_while_stored_late(x: wp.array(dtype=float), y: wp.array(dtype=float), n: int):
    i = wp.tid()
    stride = wp.block_dim()
    while i < n:
        y[i] = y[i] + x[i]
        i += stride
        stride = wp.grid_dim() * wp.block_dim()


@wp.kernel
def sum_rows(m: int, a: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    acc = float(0.0)
    for k in range(m):
        acc = acc + a[k]
    out[i] = acc


@wp.kernel
def sum_rows_inclusive(m: int, a: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    acc = float(0.0)
    for k in range(m + 1):
        acc = acc + a[k]
    out[i] = acc


@wp.kernel
def halve_loop(x: wp.array(dtype=float)):
    i = wp.tid()
    k = i
    while k > 0:
        wp.atomic_add(x, k, 1.0)
        k = k // 2


@wp.kernel
def halve_loop_shifted(x: wp.array(dtype=float)):
    i = wp.tid()
    k = i
    while k > 0:
        wp.atomic_add(x, k + 1, 1.0)
        k = k // 2
