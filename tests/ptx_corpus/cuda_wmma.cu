// CUDA C tensor cores through nvcuda::wmma (m16n16k16); cuda_wmma.ptx is its PTX
// (tools/gen_ptx_corpus.py).
#include <mma.h>
#include <cuda_fp16.h>
using namespace nvcuda;

// C (16 x 16, row-major, f32) = A (16 x K, row-major) * B (K x 16, column-major: column n at b + n*ldb)
extern "C" __global__ void wmma_f32(const half* a, const half* b, float* c, int K, int lda, int ldb, int ldc) {
    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
    wmma::fill_fragment(fc, 0.0f);
    for (int k = 0; k < K; k += 16) {
        wmma::load_matrix_sync(fa, a + k, lda);
        wmma::load_matrix_sync(fb, b + k, ldb);
        wmma::mma_sync(fc, fa, fb, fc);
    }
    wmma::store_matrix_sync(c, fc, ldc, wmma::mem_row_major);
}

// D (column-major, f16) = 2 * (A * B) + C: B row-major, staged through shared memory;
// the accumulator f16, scaled element by element
extern "C" __global__ void wmma_f16(const half* a, const half* b, const half* c, half* d) {
    __shared__ half tile[16 * 16];
    for (int i = threadIdx.x; i < 256; i += 32) tile[i] = b[i];
    __syncwarp();
    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::col_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::row_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, half> fc, fd;
    wmma::load_matrix_sync(fa, a, 16);
    wmma::load_matrix_sync(fb, tile, 16);
    wmma::load_matrix_sync(fc, c, 16, wmma::mem_row_major);
    wmma::fill_fragment(fd, __float2half(0.0f));
    wmma::mma_sync(fd, fa, fb, fd);
    for (int i = 0; i < fd.num_elements; i++) fd.x[i] = __hadd(__hmul(fd.x[i], __float2half(2.0f)), fc.x[i]);
    wmma::store_matrix_sync(d, fd, 16, wmma::mem_col_major);
}
