# Found by the fuzzer (shrunk by hand): numpy's fmin/fmax give the second operand on a tie of
# -0.0 and +0.0, the fast engine (and Warp's CPU code) the first: the precise engine now
# computes the MIR's MIN/MAX as Warp does, and so do atomics and the PTX.
import simt as wp


@wp.kernel
def fuzz(fin: wp.array(dtype=wp.float32), iin: wp.array(dtype=wp.int32),
         out_int32: wp.array2d(dtype=wp.int32),
         out_uint32: wp.array2d(dtype=wp.uint32),
         out_int64: wp.array2d(dtype=wp.int64),
         out_uint64: wp.array2d(dtype=wp.uint64),
         out_int8: wp.array2d(dtype=wp.int8),
         out_uint8: wp.array2d(dtype=wp.uint8),
         out_float32: wp.array2d(dtype=wp.float32),
         out_float64: wp.array2d(dtype=wp.float64),
         out_math: wp.array2d(dtype=wp.float64),
         acc_fa: wp.array(dtype=wp.float32), acc_fx: wp.array(dtype=wp.float32),
         acc_ia: wp.array(dtype=wp.int32), acc_ix: wp.array(dtype=wp.int64),
         acc_in: wp.array(dtype=wp.uint32), acc_da: wp.array(dtype=wp.float64)):
    tid = wp.tid()
    lt = wp.thread_idx()
    shf = wp.shared.array(shape=(64,), dtype=wp.float32)
    shi = wp.shared.array(shape=(64,), dtype=wp.int32)
    v1 = wp.float32(fin[tid * 4 + 0])
    v2 = v1 * wp.float32(0.0)
    v3 = wp.max(v2, -v2)
    v4 = wp.min(v2, -v2)
    wp.atomic_max(acc_fx, tid & 7, v4)
    out_float32[0, tid] = v2
    out_float32[1, tid] = v3
    out_float32[2, tid] = v4
