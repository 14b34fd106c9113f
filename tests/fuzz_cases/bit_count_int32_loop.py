# Found by the fuzzer: the precise engine's bit_count of an int32 ran numpy's int64 loop
# (compiled earlier for another kernel) on sign-extended values: 64 set bits for -1.
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
    v1 = wp.int32(iin[tid * 4 + 0])
    v2 = wp.uint32(iin[tid * 4 + 1])
    v3 = wp.int64(iin[tid * 4 + 2])
    v1 = ((~(v1 + v1)) + (wp.int32(v1) + v1))
    if True:
        v1 = v1
    v4 = wp.int32(wp.bit_count(v1))
    out_int32[0, tid] = v1
    out_int32[1, tid] = v4
    out_uint32[0, tid] = v2
    out_int64[0, tid] = v3
