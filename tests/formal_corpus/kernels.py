"""Kernels with known verdicts for simt.verify: correct ones and seeded-bug mutants, the
1-D ones written here, the symbolic loops in loops.py and the n-D blocks in blocks_nd.py.

Each case: (name, kernel, verify keyword arguments, the check a mutant's bug breaks or None).
"""
import simt as wp

from .blocks_nd import (  # noqa: F401  (the catalogue below names them)
    transpose_tile, transpose_tile_no_sync, stencil_2d, stencil_2d_edge, stencil_2d_in_place,
    volume_3d, volume_3d_swapped)
from .loops import (  # noqa: F401  (the catalogue below names them)
    strided_loop, strided_loop_past_end, strided_scale, strided_scale_block_stride,
    stride_while, stride_while_block, stride_while_assign, stride_while_assign_grid,
    stride_while_assign_tail, stride_while_stored, stride_while_stored_short,
    stride_while_stored_shrinks, stride_while_stored_late, sum_rows, sum_rows_inclusive,
    halve_loop, halve_loop_shifted)

B = 64


@wp.kernel
def copy_guarded(n: int, x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    if i < n:
        y[i] = x[i]


@wp.kernel
def copy_off_by_one(n: int, x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    if i <= n:
        y[i] = x[i]


@wp.kernel
def copy_dim(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = x[i]


@wp.kernel
def copy_dim_shifted(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i + 1] = x[i]


@wp.kernel
def reverse(n: int, x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    if i < n:
        y[n - 1 - i] = x[i]


@wp.kernel
def reverse_off(n: int, x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    if i < n:
        y[n - i] = x[i]


@wp.kernel
def tree_reduce(x: wp.array(dtype=float), out: wp.array(dtype=float)):
    s = wp.shared.array(shape=(64,), dtype=float)
    t = wp.thread_idx()
    s[t] = x[wp.tid()]
    wp.sync_threads()
    k = 32
    while k > 0:
        if t < k:
            s[t] = s[t] + s[t + k]
        wp.sync_threads()
        k = k // 2
    if t == 0:
        out[wp.block_idx()] = s[0]


@wp.kernel
def tree_reduce_no_sync(x: wp.array(dtype=float), out: wp.array(dtype=float)):
    s = wp.shared.array(shape=(64,), dtype=float)
    t = wp.thread_idx()
    s[t] = x[wp.tid()]
    wp.sync_threads()
    k = 32
    while k > 0:
        if t < k:
            s[t] = s[t] + s[t + k]
        k = k // 2
    if t == 0:
        out[wp.block_idx()] = s[0]


@wp.kernel
def tree_reduce_divergent_sync(x: wp.array(dtype=float), out: wp.array(dtype=float)):
    s = wp.shared.array(shape=(64,), dtype=float)
    t = wp.thread_idx()
    s[t] = x[wp.tid()]
    wp.sync_threads()
    k = 32
    while k > 0:
        if t < k:
            s[t] = s[t] + s[t + k]
            wp.sync_threads()
        k = k // 2
    if t == 0:
        out[wp.block_idx()] = s[0]


@wp.kernel
def tree_reduce_wrong_stride(x: wp.array(dtype=float), out: wp.array(dtype=float)):
    s = wp.shared.array(shape=(64,), dtype=float)
    t = wp.thread_idx()
    s[t] = x[wp.tid()]
    wp.sync_threads()
    k = 32
    while k > 0:
        if t < k:
            s[t] = s[t] + s[t + 2 * k]
        wp.sync_threads()
        k = k // 2
    if t == 0:
        out[wp.block_idx()] = s[0]


@wp.kernel
def neighbour(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    s = wp.shared.array(shape=(64,), dtype=float)
    t = wp.thread_idx()
    i = wp.tid()
    s[t] = x[i]
    wp.sync_threads()
    y[i] = s[(t + 1) % 64]


@wp.kernel
def neighbour_no_sync(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    s = wp.shared.array(shape=(64,), dtype=float)
    t = wp.thread_idx()
    i = wp.tid()
    s[t] = x[i]
    y[i] = s[(t + 1) % 64]


@wp.kernel
def scan(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    s = wp.shared.array(shape=(64,), dtype=float)
    t = wp.thread_idx()
    i = wp.tid()
    s[t] = x[i]
    wp.sync_threads()
    off = 1
    while off < 64:
        v = float(0.0)
        if t >= off:
            v = s[t - off]
        wp.sync_threads()
        s[t] = s[t] + v
        wp.sync_threads()
        off = off * 2
    y[i] = s[t]


@wp.kernel
def scan_one_sync(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    s = wp.shared.array(shape=(64,), dtype=float)
    t = wp.thread_idx()
    i = wp.tid()
    s[t] = x[i]
    wp.sync_threads()
    off = 1
    while off < 64:
        v = float(0.0)
        if t >= off:
            v = s[t - off]
        s[t] = s[t] + v
        wp.sync_threads()
        off = off * 2
    y[i] = s[t]


@wp.kernel
def histogram(x: wp.array(dtype=int), bins: wp.array(dtype=int)):
    b = x[wp.tid()]
    if b >= 0 and b < bins.shape[0]:
        wp.atomic_add(bins, b, 1)


@wp.kernel
def histogram_unguarded(x: wp.array(dtype=int), bins: wp.array(dtype=int)):
    b = x[wp.tid()]
    wp.atomic_add(bins, b, 1)


@wp.kernel
def counter_atomic(x: wp.array(dtype=int), count: wp.array(dtype=int)):
    if x[wp.tid()] > 0:
        wp.atomic_add(count, 0, 1)


@wp.kernel
def counter_plain(x: wp.array(dtype=int), count: wp.array(dtype=int)):
    if x[wp.tid()] > 0:
        count[0] = count[0] + 1


@wp.kernel
def gather(n: int, idx: wp.array(dtype=int), x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    k = idx[i]
    if k >= 0 and k < n:
        y[i] = x[k]


@wp.kernel
def gather_unchecked(n: int, idx: wp.array(dtype=int), x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = x[idx[i]]


@wp.kernel
def vec4_tail(n: int, x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    if i * 4 + 3 < n:
        for k in range(4):
            y[i * 4 + k] = x[i * 4 + k]


@wp.kernel
def vec4_unguarded_tail(n: int, x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    if i * 4 < n:
        for k in range(4):
            y[i * 4 + k] = x[i * 4 + k]


@wp.kernel
def per_block_result(x: wp.array(dtype=float), out: wp.array(dtype=float)):
    if wp.thread_idx() == 0:
        out[wp.block_idx()] = x[wp.tid()]


@wp.kernel
def per_block_same_slot(x: wp.array(dtype=float), out: wp.array(dtype=float)):
    if wp.thread_idx() == 0:
        out[0] = x[wp.tid()]


@wp.kernel
def in_place(x: wp.array(dtype=float)):
    i = wp.tid()
    x[i] = x[i] * 2.0


@wp.kernel
def in_place_neighbour(x: wp.array(dtype=float)):
    i = wp.tid()
    x[i] = x[i + 1] * 2.0


@wp.kernel
def uniform_sync(n: int, x: wp.array(dtype=float)):
    s = wp.shared.array(shape=(64,), dtype=float)
    t = wp.thread_idx()
    s[t] = 1.0
    if n > 0:
        wp.sync_threads()
    x[wp.tid()] = s[t]


@wp.kernel
def thread_dependent_sync(n: int, x: wp.array(dtype=float)):
    s = wp.shared.array(shape=(64,), dtype=float)
    t = wp.thread_idx()
    s[t] = 1.0
    if t < n:
        wp.sync_threads()
    x[wp.tid()] = s[t]


@wp.kernel
def tiles(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    s = wp.shared.array(shape=(64,), dtype=float)
    t = wp.thread_idx()
    i = wp.tid()
    acc = float(0.0)
    for tile in range(4):
        s[t] = x[i * 4 + tile]
        wp.sync_threads()
        acc = acc + s[63 - t]
        wp.sync_threads()
    y[i] = acc


@wp.kernel
def tiles_missing_second_sync(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    s = wp.shared.array(shape=(64,), dtype=float)
    t = wp.thread_idx()
    i = wp.tid()
    acc = float(0.0)
    for tile in range(4):
        s[t] = x[i * 4 + tile]
        wp.sync_threads()
        acc = acc + s[63 - t]
    y[i] = acc


@wp.kernel
def fixed_loop(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    for k in range(8):
        y[i * 8 + k] = x[i * 8 + k]


@wp.kernel
def fixed_loop_overrun(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    for k in range(9):
        y[i * 8 + k] = x[i * 8 + k]


@wp.kernel
def clamp(n: int, off: int, x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    j = wp.min(wp.max(i + off, 0), n - 1)
    y[i] = x[j]


@wp.kernel
def clamp_upper_only(n: int, off: int, x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    j = wp.min(i + off, n - 1)
    y[i] = x[j]


@wp.kernel
def even_compact(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    if i % 2 == 0:
        y[i // 2] = x[i]


@wp.kernel
def halves_collide(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i // 2] = x[i]




@wp.kernel
def shared_atomic_hist(x: wp.array(dtype=int), out: wp.array(dtype=int)):
    s = wp.shared.array(shape=(16,), dtype=int)
    t = wp.thread_idx()
    if t < 16:
        s[t] = 0
    wp.sync_threads()
    wp.atomic_add(s, x[wp.tid()] & 15, 1)
    wp.sync_threads()
    if t < 16:
        wp.atomic_add(out, t, s[t])


@wp.kernel
def shared_hist_plain(x: wp.array(dtype=int), out: wp.array(dtype=int)):
    s = wp.shared.array(shape=(16,), dtype=int)
    t = wp.thread_idx()
    if t < 16:
        s[t] = 0
    wp.sync_threads()
    b = x[wp.tid()] & 15
    s[b] = s[b] + 1
    wp.sync_threads()
    if t < 16:
        wp.atomic_add(out, t, s[t])


@wp.kernel
def shared_hist_no_init_sync(x: wp.array(dtype=int), out: wp.array(dtype=int)):
    s = wp.shared.array(shape=(16,), dtype=int)
    t = wp.thread_idx()
    if t < 16:
        s[t] = 0
    wp.atomic_add(s, x[wp.tid()] & 15, 1)
    wp.sync_threads()
    if t < 16:
        wp.atomic_add(out, t, s[t])


@wp.kernel
def rows_2d(x: wp.array2d(dtype=float), y: wp.array2d(dtype=float)):
    i, j = wp.tid()
    y[i, j] = x[i, j] + 1.0


@wp.kernel
def rows_2d_swapped(x: wp.array2d(dtype=float), y: wp.array2d(dtype=float)):
    i, j = wp.tid()
    y[j, i] = x[i, j] + 1.0


@wp.kernel
def early_exit_then_sync(n: int, x: wp.array(dtype=float), y: wp.array(dtype=float)):
    s = wp.shared.array(shape=(64,), dtype=float)
    t = wp.thread_idx()
    s[t] = x[wp.tid()]
    wp.sync_threads()
    if t == 0:
        y[wp.block_idx()] = s[0] + s[63]


@wp.kernel
def read_before_write_sync(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    s = wp.shared.array(shape=(64,), dtype=float)
    t = wp.thread_idx()
    if t == 0:
        s[0] = x[wp.tid()]
    y[wp.tid()] = s[0]


@wp.kernel
def broadcast(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    s = wp.shared.array(shape=(64,), dtype=float)
    t = wp.thread_idx()
    if t == 0:
        s[0] = x[wp.tid()]
    wp.sync_threads()
    y[wp.tid()] = s[0]


@wp.kernel
def dot_partial(n: int, a: wp.array(dtype=float), b: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    if i < n:
        wp.atomic_add(out, 0, a[i] * b[i])


@wp.kernel
def dot_partial_plain(n: int, a: wp.array(dtype=float), b: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    if i < n:
        out[0] = out[0] + a[i] * b[i]


@wp.kernel
def saxpy(n: int, alpha: float, x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    if i < n:
        y[i] = alpha * x[i] + y[i]


@wp.kernel
def saxpy_wrong_guard(n: int, alpha: float, x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    if i < n + 1:
        y[i] = alpha * x[i] + y[i]


@wp.kernel
def pairs(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[2 * i] = x[i]
    y[2 * i + 1] = x[i]


@wp.kernel
def pairs_overlap(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[2 * i] = x[i]
    y[2 * i + 2] = x[i]


@wp.kernel
def mirror(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    s = wp.shared.array(shape=(64,), dtype=float)
    t = wp.thread_idx()
    s[t] = x[wp.tid()]
    wp.sync_threads()
    y[wp.tid()] = s[63 - t]


@wp.kernel
def mirror_no_sync(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    s = wp.shared.array(shape=(64,), dtype=float)
    t = wp.thread_idx()
    s[t] = x[wp.tid()]
    y[wp.tid()] = s[63 - t]


@wp.kernel
def reduce_block_dim(x: wp.array(dtype=float), out: wp.array(dtype=float)):
    s = wp.shared.array(shape=(64,), dtype=float)
    t = wp.thread_idx()
    s[t] = x[wp.tid()]
    wp.sync_threads()
    k = wp.block_dim() // 2
    while k > 0:
        if t < k:
            s[t] = s[t] + s[t + k]
        wp.sync_threads()
        k = k // 2
    if t == 0:
        out[wp.block_idx()] = s[0]


@wp.kernel
def reduce_block_dim_le(x: wp.array(dtype=float), out: wp.array(dtype=float)):
    s = wp.shared.array(shape=(64,), dtype=float)
    t = wp.thread_idx()
    s[t] = x[wp.tid()]
    wp.sync_threads()
    k = wp.block_dim() // 2
    while k > 0:
        if t <= k:
            s[t] = s[t] + s[t + k]
        wp.sync_threads()
        k = k // 2
    if t == 0:
        out[wp.block_idx()] = s[0]


@wp.kernel
def ends_without_sync(n: int, x: wp.array(dtype=float), y: wp.array(dtype=float)):
    s = wp.shared.array(shape=(64,), dtype=float)
    t = wp.thread_idx()
    s[t] = x[wp.tid()]
    if t == 0:
        y[wp.block_idx()] = s[0] + s[63]


@wp.kernel
def tiles_m(m: int, x: wp.array(dtype=float), y: wp.array(dtype=float)):
    s = wp.shared.array(shape=(64,), dtype=float)
    t = wp.thread_idx()
    i = wp.tid()
    acc = float(0.0)
    for tile in range(m):
        s[t] = x[tile * 64 + t]
        wp.sync_threads()
        acc = acc + s[63 - t]
        wp.sync_threads()
    y[i] = acc

@wp.kernel
def tiles_m_bad(m: int, x: wp.array(dtype=float), y: wp.array(dtype=float)):
    s = wp.shared.array(shape=(64,), dtype=float)
    t = wp.thread_idx()
    i = wp.tid()
    acc = float(0.0)
    for tile in range(m):
        s[t] = x[tile * 64 + t]
        wp.sync_threads()
        acc = acc + s[63 - t]
    y[i] = acc


@wp.kernel
def scale_any_block(n: int, a: float, x: wp.array(dtype=float)):
    i = wp.tid()
    if i < n:
        x[i] = a * x[i]


@wp.kernel
def block_max(x: wp.array(dtype=int), out: wp.array(dtype=int)):
    s = wp.shared.array(shape=(1,), dtype=int)
    t = wp.thread_idx()
    if t == 0:
        s[0] = 0
    wp.sync_threads()
    wp.atomic_max(s, 0, x[wp.tid()])
    wp.sync_threads()
    if t == 0:
        out[wp.block_idx()] = s[0]


@wp.kernel
def countdown(n: int, x: wp.array(dtype=float)):
    i = wp.tid()
    k = n - 1
    while k >= i:
        wp.atomic_add(x, k, 1.0)
        k = k - 64


@wp.kernel
def tiles_div(m: int, x: wp.array(dtype=float), y: wp.array(dtype=float)):
    s = wp.shared.array(shape=(64,), dtype=float)
    t = wp.thread_idx()
    i = wp.tid()
    acc = float(0.0)
    for tile in range(m + t % 2):
        s[t] = x[tile * 64 + t]
        wp.sync_threads()
        acc = acc + s[63 - t]
        wp.sync_threads()
    y[i] = acc

@wp.kernel
def tiles_partial(m: int, x: wp.array(dtype=float), y: wp.array(dtype=float)):
    s = wp.shared.array(shape=(64,), dtype=float)
    t = wp.thread_idx()
    i = wp.tid()
    acc = float(0.0)
    if t < 32:
        for tile in range(m):
            s[t] = x[tile * 64 + t]
            wp.sync_threads()
            acc = acc + s[63 - t]
            wp.sync_threads()
    y[i] = acc




@wp.kernel
def halves_same_value(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i // 2] = 1.0


SIZED = ("dim[0] <= x.shape[0]", "dim[0] <= y.shape[0]")
NSIZED = ("n <= x.shape[0]", "n <= y.shape[0]")
BLOCKS = ("out.shape[0] * 64 >= dim[0]", "dim[0] <= x.shape[0]")
FB = dict(block_dim=B)
TILED = ("dim[0] % 16 == 0", "dim[1] % 16 == 0")
TRANSPOSED = ("a.shape[0] == dim[0]", "a.shape[1] == dim[1]", "b.shape[0] == dim[1]", "b.shape[1] == dim[0]")
GRID2 = ("x.shape[0] == dim[0]", "x.shape[1] == dim[1]", "y.shape[0] == dim[0]", "y.shape[1] == dim[1]")
VOLUME = tuple(f"{a}.shape[{k}] == dim[{k}]" for a in "xy" for k in range(3))

# (correct kernel, mutant, keyword arguments for both, the check the mutant breaks)
PAIRS = [
    (copy_guarded, copy_off_by_one, dict(FB, assume=NSIZED), "bounds"),
    (copy_dim, copy_dim_shifted, dict(FB, assume=SIZED), "bounds"),
    (reverse, reverse_off, dict(FB, assume=NSIZED), "bounds"),
    (tree_reduce, tree_reduce_no_sync, dict(FB, assume=BLOCKS), "race"),
    (tree_reduce, tree_reduce_divergent_sync, dict(FB, assume=BLOCKS), "barrier"),
    (tree_reduce, tree_reduce_wrong_stride, dict(FB, assume=BLOCKS), "bounds"),
    (neighbour, neighbour_no_sync, dict(FB, assume=SIZED), "race"),
    (scan, scan_one_sync, dict(FB, assume=SIZED), "race"),
    (histogram, histogram_unguarded, dict(FB, assume=("dim[0] <= x.shape[0]",)), "bounds"),
    (counter_atomic, counter_plain, dict(FB, assume=("dim[0] <= x.shape[0]", "count.shape[0] >= 1")), "race"),
    (gather, gather_unchecked, dict(FB, assume=("n <= x.shape[0]", "dim[0] <= idx.shape[0]", "dim[0] <= y.shape[0]")), "bounds"),
    (vec4_tail, vec4_unguarded_tail, dict(FB, assume=NSIZED), "bounds"),
    (per_block_result, per_block_same_slot, dict(FB, assume=BLOCKS), "race"),
    (in_place, in_place_neighbour, dict(FB, assume=("dim[0] < x.shape[0]",)), "race"),
    (uniform_sync, thread_dependent_sync, dict(FB, assume=("dim[0] <= x.shape[0]",)), "barrier"),
    (tiles, tiles_missing_second_sync, dict(FB, assume=("4 * dim[0] <= x.shape[0]", "dim[0] <= y.shape[0]")), "race"),
    (fixed_loop, fixed_loop_overrun, dict(FB, assume=("8 * dim[0] <= x.shape[0]", "8 * dim[0] <= y.shape[0]")), "bounds"),
    (clamp, clamp_upper_only, dict(FB, assume=("n >= 1", "n <= x.shape[0]", "dim[0] <= y.shape[0]")), "bounds"),
    (even_compact, halves_collide, dict(FB, assume=("dim[0] <= x.shape[0]", "dim[0] <= 2 * y.shape[0]")), "race"),
    (strided_loop, strided_loop_past_end, dict(FB, assume=("n <= x.shape[0]",)), "bounds"),
    (strided_scale, strided_scale_block_stride, dict(FB, assume=("n <= x.shape[0]",)), "race"),
    (stride_while, stride_while_block, dict(FB, assume=("n <= x.shape[0]",)), "race"),
    (stride_while_assign, stride_while_assign_grid, dict(FB, assume=("n <= x.shape[0]",)), "race"),
    (stride_while_assign, stride_while_assign_tail, dict(FB, assume=("n <= x.shape[0]",)), "bounds"),
    (stride_while_stored, stride_while_stored_short, dict(FB, assume=NSIZED), "race"),
    (stride_while_stored, stride_while_stored_shrinks, dict(FB, assume=NSIZED), "race"),
    (stride_while_stored, stride_while_stored_late, dict(FB, assume=NSIZED), "race"),
    (sum_rows, sum_rows_inclusive, dict(FB, assume=("m <= a.shape[0]", "dim[0] <= out.shape[0]")), "bounds"),
    (halve_loop, halve_loop_shifted, dict(FB, assume=("dim[0] <= x.shape[0]",)), "bounds"),
    (shared_atomic_hist, shared_hist_plain, dict(FB, assume=("dim[0] <= x.shape[0]", "out.shape[0] >= 16")), "race"),
    (shared_atomic_hist, shared_hist_no_init_sync, dict(FB, assume=("dim[0] <= x.shape[0]", "out.shape[0] >= 16")), "race"),
    (rows_2d, rows_2d_swapped, dict(dim=(8, 16), block_dim=B, assume=("x.shape[0] == 8", "x.shape[1] == 16", "y.shape[0] == 8", "y.shape[1] == 16")), "bounds"),
    (broadcast, read_before_write_sync, dict(FB, assume=SIZED), "race"),
    (dot_partial, dot_partial_plain, dict(FB, assume=("n <= a.shape[0]", "n <= b.shape[0]", "out.shape[0] >= 1")), "race"),
    (saxpy, saxpy_wrong_guard, dict(FB, assume=NSIZED), "bounds"),
    (pairs, pairs_overlap, dict(FB, assume=("dim[0] <= x.shape[0]", "2 * dim[0] <= y.shape[0]")), "race"),
    (early_exit_then_sync, ends_without_sync, dict(FB, assume=("dim[0] <= x.shape[0]", "y.shape[0] * 64 >= dim[0]")), "race"),
    (mirror, mirror_no_sync, dict(FB, assume=SIZED), "race"),
    (reduce_block_dim, reduce_block_dim_le, dict(FB, assume=BLOCKS), "bounds"),
    (tiles_m, tiles_m_bad, dict(FB, assume=("m * 64 <= x.shape[0]", "dim[0] <= y.shape[0]")), "race"),
    (tiles_m, tiles_div, dict(FB, assume=("m * 64 + 64 <= x.shape[0]", "dim[0] <= y.shape[0]")), "barrier"),
    (tiles_m, tiles_partial, dict(FB, assume=("m * 64 <= x.shape[0]", "dim[0] <= y.shape[0]")), "barrier"),
    # n-D blocks (CUDA's block=(by, bx)), any launch extents
    (transpose_tile, transpose_tile_no_sync, dict(block_dim=(16, 16), assume=TILED + TRANSPOSED), "race"),
    (stencil_2d, stencil_2d_edge, dict(block_dim=(8, 32), assume=GRID2), "bounds"),
    (stencil_2d, stencil_2d_in_place, dict(block_dim=(8, 32), assume=GRID2), "race"),
    # a fixed launch: the swapped mutant's bug (coordinates past their extents) is found only
    # when the extents are constants (with symbolic ones it multiplies unknowns: unknown)
    (volume_3d, volume_3d_swapped, dict(dim=(6, 10, 12), block_dim=(2, 4, 8), assume=VOLUME), "bounds"),
]

# Correct kernels without a mutant: (kernel, keyword arguments)
SINGLES = [
    (scale_any_block, dict(assume=("n <= x.shape[0]",), checks=("bounds", "barrier"))),
    (block_max, dict(FB, assume=("dim[0] <= x.shape[0]", "out.shape[0] * 64 >= dim[0]"))),
    (countdown, dict(FB, assume=("0 <= n", "n <= x.shape[0]"))),   # n < 0 wraps n - 1: a bug
    # lanes of a warp storing one value to one element: not a race
    (halves_same_value, dict(FB, assume=("dim[0] <= 2 * y.shape[0]",))),
]
