// How the L1 keeps lines a warp reads again: its capacity, and how many lines whose addresses
// are a power-of-two stride apart it holds at once (its sets and ways, or its index hash).
// One thread of one block chases a cycle through `n` 128-byte lines that are `stride` lines
// apart (the lines visited in a fixed random order, the same order every pass), PASSES times.
// The first pass misses every line; in the others a line hits in the L1 if the L1 kept it
// since the last pass. With Nsight Compute's L1 lookup hits and misses (global loads), the
// steady hit rate is hits / ((PASSES - 1) n).
//   - stride 1: n from 128 to 3,072 lines (16-384 KB): the capacity, and the shape of the
//     fall past it (a fully associative LRU cache keeps all of a cycle that fits and, past its
//     size, none; a set-associative one starts losing lines well before);
//   - strides 2 to 4,096 lines: n from 4 to 2,048, as far as n x stride <= 2^20 lines.
//     Where the set index is low address bits, lines a multiple of the sets apart share one set
//     and only `ways` of them stay; a hashed index spreads them.
// The kernel asks for no shared memory and sets no carveout, as a user's kernel does; the
// profile's launch__shared_mem_config_size says what the driver picked. The manifest names
// each launch: bench "ring", param "stride", value = stride x 10^5 + n, work = the loads.
// benchmarks/timing/l1_assoc.py prints the table and, with --model, the same chase in simt.
#include "micro_common.cuh"

static const int PASSES = 5;

__global__ void k_ring(const int *next, int steps, int *out) {
  if (threadIdx.x != 0) return;
  int j = 0;
  for (int i = 0; i < steps; i++) j = next[j];
  out[0] = j;
}

int main(int argc, char **argv) {
  if (int rc = open_manifest(argc, argv)) return rc;
  fprintf(manifest, "launch,bench,param,value,grid,block,work\n");
  const size_t span = (size_t)1 << 20;                          // lines: 128 MB
  int *next;
  CHECK(cudaMalloc(&next, span * 32 * sizeof(int)));
  int *out = device_buffer<int>(32, 0);
  std::vector<std::pair<int, int>> plan;
  for (int n : {128, 256, 512, 768, 1024, 1152, 1280, 1408, 1536, 1664, 1792, 1920, 2048, 2304, 2560, 3072})
    plan.push_back({1, n});
  for (int stride = 2; stride <= 4096; stride *= 2)
    for (int n : {4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024, 1536, 2048})
      if ((size_t)n * stride <= span) plan.push_back({stride, n});
  std::mt19937 rng(7);
  for (auto [stride, n] : plan) {
    const std::vector<int> host = ring_words(n, stride, rng);
    CHECK(cudaMemcpy(next, host.data(), host.size() * sizeof(int), cudaMemcpyHostToDevice));
    TIMED k_ring<<<1, 32>>>(next, PASSES * n, out);
    done("ring", "stride", (long long)stride * 100000 + n, 1, 32, (long long)PASSES * n);
  }
  CHECK(cudaFree(next));
  CHECK(cudaFree(out));
  fclose(manifest);
  printf("%d launches\n", launch_index);
  return 0;
}
