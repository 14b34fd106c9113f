// Which SM each block of a launch's first wave runs on (%smid), for a few grid shapes, three
// times each: the H200's block distributor deals blocks to GPCs, so the blocks that share an SM
// are not the ones a plain round-robin over SMs pairs. dispatch_order.py reads the output.
//
//   nvcc -O3 -arch=sm_90 -o /tmp/dispatch_order dispatch_order.cu && /tmp/dispatch_order > data/h200/dispatch_order.txt
#include <cstdio>
#include <cuda_runtime.h>
__global__ void where(int* smid, int spin) {
  int b = blockIdx.x + gridDim.x * blockIdx.y;
  if (threadIdx.x == 0 && threadIdx.y == 0) {
    unsigned s; asm("mov.u32 %0, %%smid;" : "=r"(s));
    smid[b] = s;
  }
  long long c0 = clock64(); while (clock64() - c0 < spin) {}
}
int main() {
  int* d; cudaMalloc(&d, 1 << 20); int h[1 << 16];
  struct C { int gx, gy, bx, by; } cs[] = {{256,1,256,1},{16,16,16,16},{264,1,256,1},{528,1,256,1},{1056,1,256,1},{132,1,1024,1},{64,1,256,1},{300,1,128,1}};
  for (auto c : cs) for (int rep = 0; rep < 3; ++rep) {
    where<<<dim3(c.gx, c.gy), dim3(c.bx, c.by)>>>(d, 200000);
    cudaDeviceSynchronize();
    int n = c.gx * c.gy; cudaMemcpy(h, d, n * 4, cudaMemcpyDeviceToHost);
    printf("grid %dx%d block %dx%d rep %d:", c.gx, c.gy, c.bx, c.by, rep);
    for (int i = 0; i < n; ++i) printf(" %d", h[i]);
    printf("\n");
  }
  return 0;
}
