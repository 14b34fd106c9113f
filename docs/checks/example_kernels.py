"""The kernels docs/checks/README.md checks: each has the bug its section is about."""
import simt as wp


@wp.kernel
def reduce_no_barrier(x: wp.array(dtype=float), sums: wp.array(dtype=float)):
    s = wp.shared.array(shape=(128,), dtype=float)
    t = wp.thread_idx()
    s[t] = x[wp.tid()]
    wp.sync_threads()
    stride = int(64)
    while stride > 0:
        if t < stride:
            s[t] = s[t] + s[t + stride]     # no sync_threads() after this round
        stride = stride // 2
    if t == 0:
        sums[wp.block_idx()] = s[0]


@wp.kernel
def last_block_wins(total: wp.array(dtype=float)):
    total[0] = float(wp.block_idx())        # every block writes its own id to one word


@wp.kernel
def warp_sum_no_syncwarp(x: wp.array(dtype=float), sums: wp.array(dtype=float)):
    s = wp.shared.array(shape=(32,), dtype=float)
    lane = wp.lane_id()
    s[lane] = x[wp.tid()]
    if lane < 16:
        s[lane] = s[lane] + s[lane + 16]    # lanes 16-31 wrote these without a syncwarp()
    if lane == 0:
        sums[wp.tid() // 32] = s[0] + s[1]


@wp.kernel
def half_filled(x: wp.array(dtype=float), out: wp.array(dtype=float)):
    s = wp.shared.array(shape=(64,), dtype=float)
    t = wp.thread_idx()
    if t < 32:
        s[t] = x[wp.tid()]
    wp.sync_threads()
    out[wp.tid()] = s[63 - t]               # threads 0-31 read what nobody wrote


@wp.kernel
def scale(x: wp.array(dtype=float), out: wp.array(dtype=float)):
    out[wp.tid()] = 2.0 * x[wp.tid()]


@wp.kernel
def early_barrier(x: wp.array(dtype=float), out: wp.array(dtype=float)):
    t = wp.thread_idx()
    if t < 16:
        wp.sync_threads()                   # only threads 0-15 get here
    out[wp.tid()] = x[wp.tid()]


@wp.kernel
def half_warp_shuffle(x: wp.array(dtype=float), out: wp.array(dtype=float)):
    v = x[wp.tid()]
    if wp.lane_id() < 16:
        v = v + wp.shfl_down_sync(0xFFFFFFFF, v, 16)   # the mask names lanes 16-31, not here
    out[wp.tid()] = v


@wp.kernel
def forgot_increment(n: int, out: wp.array(dtype=int)):
    i = wp.tid()
    k = int(0)
    total = int(0)
    while k < n:
        total = total + out[i]              # k never changes
    out[i] = total
