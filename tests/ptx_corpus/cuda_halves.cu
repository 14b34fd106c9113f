// Half precision through cuda_fp16.h and cuda_bf16.h, whose intrinsics are inline asm with
// .f16 registers named without a %. cuda_halves.ptx is its PTX (tools/gen_ptx_corpus.py).
#include <cuda_fp16.h>
#include <cuda_bf16.h>

extern "C" __global__ void halves(const __half2* x, const __nv_bfloat16* y, __half2* out, float* outf) {
    int i = threadIdx.x;
    __half2 v = x[i];
    out[i] = __hfma2(v, v, __hadd2(v, v));
    outf[i] = __bfloat162float(y[i]) * 2.0f + __half2float(__hmul(__low2half(v), __high2half(v)));
}
