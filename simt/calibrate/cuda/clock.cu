// The SM clock, for the clock64 fallback of `simt calibrate` (no profiler): every SM spins for
// a number of its own cycles (clock64) while CUDA events time the launch; the slope of the
// events' nanoseconds against the cycles is the clock the SMs ran at while all of them were
// busy. A spin queued first hides the host's launch latency, as in micro_common.cuh's
// self-timed mode. Prints one CSV row per launch:
//
//   nvcc -O3 -arch=sm_90 -o clock clock.cu && ./clock > clock.csv
#include "micro_common.cuh"

// each block spins `cycles` of its SM's clock; block 0 reports the cycles it counted
__global__ void k_clock_spin(long long cycles, long long *out) {
  long long t0 = clock64(), t = t0;
  while (t - t0 < cycles) t = clock64();
  if (blockIdx.x == 0 && threadIdx.x == 0) out[0] = t - t0;
}

int main() {
  const int sms = sm_count();
  long long *out;
  CHECK(cudaMalloc(&out, sizeof(long long)));
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  printf("spin_cycles,ns\n");
  for (int rep = 0; rep < 3; rep++) {
    for (long long cycles : {1000000LL, 2000000LL, 4000000LL, 8000000LL}) {
      k_clock_spin<<<1, 1>>>(400000, out);        // the gate: the launch below queues behind it
      CHECK(cudaEventRecord(start));
      k_clock_spin<<<sms, 32>>>(cycles, out);
      CHECK(cudaEventRecord(stop));
      CHECK(cudaEventSynchronize(stop));
      CHECK(cudaGetLastError());
      float ms = 0;
      CHECK(cudaEventElapsedTime(&ms, start, stop));
      long long counted = 0;
      CHECK(cudaMemcpy(&counted, out, sizeof(counted), cudaMemcpyDeviceToHost));
      printf("%lld,%.1f\n", counted, ms * 1e6);
    }
  }
  return 0;
}
