// What the atomic microbenchmarks (atomic_*.cu) share: the hash that spreads lanes over a
// table, and reductions the compiler must emit as written (RED, never an ATOM whose value
// is dropped; ptxas may still fold a warp's lanes on one address into one update).
#pragma once

__device__ __forceinline__ unsigned mix32(unsigned x) {
  x ^= x >> 16; x *= 0x7feb352dU; x ^= x >> 15; x *= 0x846ca68bU; x ^= x >> 16;
  return x;
}

__device__ __forceinline__ void red_add(unsigned *p, unsigned v) {
  asm volatile("red.global.add.u32 [%0], %1;" : : "l"(p), "r"(v) : "memory");
}

__device__ __forceinline__ void red_add_f32(float *p, float v) {
  asm volatile("red.global.add.f32 [%0], %1;" : : "l"(p), "f"(v) : "memory");
}
