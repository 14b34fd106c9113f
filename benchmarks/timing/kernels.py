"""simt kernels of the timing-model validation set (held out: never used to fit a constant).

Each is an ordinary kernel a user might write; several come in the pairs users compare
(strided against unit-stride copy, conflicting against padded transpose, interleaved
against sequential reduction, divergent against uniform loop, occupancy-limited against
not). The launches (sizes, inputs) are in ``cases.py``.
"""
import simt as wp


@wp.kernel
def copy_strided(src: wp.array(dtype=float), dst: wp.array(dtype=float), stride: int):
    i = wp.tid()
    dst[i] = src[i * stride]


@wp.kernel
def copy_offset(src: wp.array(dtype=float), dst: wp.array(dtype=float), offset: int):
    i = wp.tid()
    dst[i] = src[i + offset]


@wp.kernel
def transpose_naive(src: wp.array2d(dtype=float), dst: wp.array2d(dtype=float)):
    i, j = wp.tid()
    dst[j, i] = src[i, j]


@wp.kernel
def reduce_interleaved(x: wp.array(dtype=float), block_sums: wp.array(dtype=float)):
    """The classic first reduction: interleaved addressing, a divergent ``t % (2 s)`` test."""
    partial = wp.shared.array(shape=(256,), dtype=float)
    t = wp.thread_idx()
    partial[t] = x[wp.tid()]
    wp.sync_threads()
    s = int(1)
    while s < 256:
        if t % (2 * s) == 0:
            partial[t] = partial[t] + partial[t + s]
        wp.sync_threads()
        s = s * 2
    if t == 0:
        block_sums[wp.block_idx()] = partial[0]


@wp.kernel
def loop_divergent(x: wp.array(dtype=float), out: wp.array(dtype=float), k: int):
    """Lane l of each warp iterates 2 k l times: the warp runs 62 k iterations, half idle."""
    i = wp.tid()
    v = x[i]
    trips = 2 * k * wp.lane_id()
    for n in range(trips):
        v = v * 0.999 + 0.001
    out[i] = v


@wp.kernel
def loop_uniform(x: wp.array(dtype=float), out: wp.array(dtype=float), k: int):
    """The same number of lane iterations as loop_divergent (31 k per lane), all lanes together."""
    i = wp.tid()
    v = x[i]
    trips = 31 * k
    for n in range(trips):
        v = v * 0.999 + 0.001
    out[i] = v


@wp.kernel
def nbody(pos: wp.array(dtype=wp.vec3), acc: wp.array(dtype=wp.vec3), n: int, eps2: float):
    i = wp.tid()
    p = pos[i]
    a = wp.vec3(0.0, 0.0, 0.0)
    for j in range(n):
        d = pos[j] - p
        r2 = wp.dot(d, d) + eps2
        inv = 1.0 / wp.sqrt(r2)
        a = a + d * (inv * inv * inv)
    acc[i] = a


@wp.kernel
def scale_full_occupancy(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    stage = wp.shared.array(shape=(256,), dtype=float)
    t = wp.thread_idx()
    i = wp.tid()
    stage[t] = x[i]
    wp.sync_threads()
    y[i] = stage[255 - t] * 2.0


@wp.kernel
def scale_low_occupancy(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    """scale_full_occupancy with a 48 KB shared array: 4 blocks of 256 threads per SM, not 8."""
    stage = wp.shared.array(shape=(12288,), dtype=float)
    t = wp.thread_idx()
    i = wp.tid()
    stage[t] = x[i]
    wp.sync_threads()
    y[i] = stage[255 - t] * 2.0


@wp.kernel
def chase_lanes(next_index: wp.array(dtype=int), steps: int, out: wp.array(dtype=int)):
    """Every lane follows its own chain of dependent loads: latency-bound."""
    i = wp.tid()
    j = i * 32
    for k in range(steps):
        j = next_index[j]
    out[i] = j
