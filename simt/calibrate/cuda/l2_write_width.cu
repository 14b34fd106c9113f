// How much of a kernel's output the L2 writes back to DRAM before the kernel ends, by the
// width of each thread's store and by whether the kernel also reads: the blind sets' image
// kernels that read one byte image and write another (median, erosion, Ising, Life; 16-67 MB)
// write 2-17 MB more to DRAM on the H200 than simt predicts, while micro.cu's stream_copy of
// 16 MB (16-byte stores) writes back 0.3 MB.
//   k_copy<T>:  dst[i] = src[i] + 1, elements of T (u8, u32 or 16-byte uint4), one a thread,
//               grid-stride, N bytes read and N written;
//   k_write<T>: dst[i] = i, N bytes written, nothing read;
//   k_copy_u8_wide: the u8 copy with each thread's 4 bytes stored by one 4-byte store (the
//               same bytes as k_copy<u8>, a quarter of the stores).
// N = 8, 16, 24, 32 and 48 MB (output bytes); 4 blocks of 256 threads an SM. The manifest
// names each launch: kernel (bench), N in MB (value, param "mb"), grid, block, and the bytes
// the kernel writes (work). benchmarks/timing/l2_write_width.py prints the DRAM bytes read and
// written against N and, with --model, simt's prediction of the same kernels.
#include <cstdint>
#include "micro_common.cuh"

template <typename T>
__device__ __forceinline__ T bump(T v) { return v + 1; }
template <>
__device__ __forceinline__ uint4 bump(uint4 v) { return make_uint4(v.x + 1, v.y + 1, v.z + 1, v.w + 1); }
template <typename T>
__device__ __forceinline__ T of_index(size_t i) { return (T)i; }
template <>
__device__ __forceinline__ uint4 of_index(size_t i) { return make_uint4((unsigned)i, 0, 0, 0); }

template <typename T>
__global__ void k_copy(const T *__restrict__ src, T *__restrict__ dst, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    dst[i] = bump(src[i]);
}

template <typename T>
__global__ void k_write(T *__restrict__ dst, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    dst[i] = of_index<T>(i);
}

__global__ void k_copy_u8_wide(const unsigned *__restrict__ src, unsigned *__restrict__ dst, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    const unsigned v = src[i];
    dst[i] = ((v + 0x01010101u) & 0xFFu) | ((((v >> 8) + 1) & 0xFFu) << 8) | ((((v >> 16) + 1) & 0xFFu) << 16)
             | ((((v >> 24) + 1) & 0xFFu) << 24);
  }
}

int main(int argc, char **argv) {
  if (int rc = open_manifest(argc, argv)) return rc;
  fprintf(manifest, "launch,bench,param,value,grid,block,work\n");
  const int grid = sm_count() * 4, block = 256;
  const size_t most = (size_t)48 << 20;
  uint8_t *a = device_buffer<uint8_t>(most, 1), *b = device_buffer<uint8_t>(most, 0);
  for (size_t mb : {8, 16, 24, 32, 48}) {
    const size_t bytes = mb << 20;
    TIMED k_copy<uint8_t><<<grid, block>>>(a, b, bytes);
    done("copy_u8", "mb", mb, grid, block, (long long)bytes);
    TIMED k_copy_u8_wide<<<grid, block>>>((const unsigned *)a, (unsigned *)b, bytes / 4);
    done("copy_u8_wide", "mb", mb, grid, block, (long long)bytes);
    TIMED k_copy<unsigned><<<grid, block>>>((const unsigned *)a, (unsigned *)b, bytes / 4);
    done("copy_u32", "mb", mb, grid, block, (long long)bytes);
    TIMED k_copy<uint4><<<grid, block>>>((const uint4 *)a, (uint4 *)b, bytes / 16);
    done("copy_u128", "mb", mb, grid, block, (long long)bytes);
    TIMED k_write<uint8_t><<<grid, block>>>(b, bytes);
    done("write_u8", "mb", mb, grid, block, (long long)bytes);
    TIMED k_write<unsigned><<<grid, block>>>((unsigned *)b, bytes / 4);
    done("write_u32", "mb", mb, grid, block, (long long)bytes);
  }
  CHECK(cudaFree(a));
  CHECK(cudaFree(b));
  fclose(manifest);
  printf("%d launches\n", launch_index);
  return 0;
}
