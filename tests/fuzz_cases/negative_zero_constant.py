# Found by the fuzzer (shrunk by hand): the precise engine kept one slot per constant keyed
# by value, and -0.0 == 0.0, so step(-0.0)'s 0.0 read back as -0.0.
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
    v3 = wp.float32(fin[tid * 4 + 2])
    lo = wp.step(wp.float32(-0.0))
    out_float32[0, tid] = lo
    out_float32[1, tid] = wp.clamp(v3, lo, v3)
    out_float32[2, tid] = wp.min(wp.float32(-0.0), v3) - wp.copysign(wp.float32(0.001), v3)
