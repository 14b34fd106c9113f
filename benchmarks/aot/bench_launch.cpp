// Start-up and per-launch cost of simt's C++ runtime (simt/runtime/include/simt/runtime.hpp).
//   bench_launch DEVICE DIR [LAUNCHES]      DIR: simt.build_kernel's out_dir of 'saxpy'
// Prints one JSON object:
//   context_ms          simt::Context creation (cuda: dlopen libcuda, cuInit, primary context)
//   load_ms             load_kernel: manifest read and checked, fatbin (or .so) loaded
//   first_launch_ms     the first launch until it completed (synchronize)
//   load_to_first_ms    load_ms + first_launch_ms: from load_kernel to the first launch done
//   simt_launch_us      per launch, Kernel::launch with the argument checks (enqueue only on cuda)
//   direct_launch_us    per launch, the same kernel through cuLaunchKernel (cuda) or the
//                       library's entry point (cpu) with arguments prepared once
//   simt_roundtrip_us / direct_roundtrip_us   launch + synchronize, per launch
#include <simt/runtime.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

using Clock = std::chrono::steady_clock;

static double since(Clock::time_point t0) {
    return std::chrono::duration<double>(Clock::now() - t0).count();
}

int main(int argc, char **argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: bench_launch DEVICE DIR [LAUNCHES]\n");
        return 2;
    }
    std::string device = argv[1], dir = argv[2];
    int launches = argc > 3 ? std::atoi(argv[3]) : 20000;
    const int64_t n = 256;
    try {
        auto t0 = Clock::now();
        simt::Context ctx(device);
        double context_s = since(t0);
        float *x = (float *)ctx.alloc(n * sizeof(float));
        float *y = (float *)ctx.alloc(n * sizeof(float));
        std::vector<float> host(n, 1.0f);
        ctx.copy_to_device(x, host.data(), n * sizeof(float));
        ctx.copy_to_device(y, host.data(), n * sizeof(float));
        simt::Array<float> ax(ctx, x, {n}), ay(ctx, y, {n});

        auto t1 = Clock::now();
        simt::Kernel k = ctx.load_kernel("saxpy", dir);
        double load_s = since(t1);
        auto t2 = Clock::now();
        k.launch({n}, {2.0f, ax, ay});
        ctx.synchronize();
        double first_s = since(t2);

        // the same launch prepared once, for the direct calls
        simt_kernel *h = k.handle();
        float a = 2.0f;
        unsigned long long px = (unsigned long long)(uintptr_t)x, py = (unsigned long long)(uintptr_t)y;
        int32_t ints[6] = {(int32_t)n, (int32_t)n, (int32_t)n, 1, 1, 1};
        void *params[] = {&a, &px, &ints[0], &py, &ints[1], &ints[2], &ints[3], &ints[4], &ints[5]};
        void *data[] = {&a, x, y};
        int64_t sizes[] = {0, n, n}, shapes[12] = {1, 1, 1, 1, n, 1, 1, 1, n, 1, 1, 1};
        simt_cpu_launch L{};
        L.block[0] = 256; L.block[1] = L.block[2] = 1;
        L.grid[0] = (n + 255) / 256; L.grid[1] = L.grid[2] = 1;
        L.dim[0] = n; L.dim[1] = L.dim[2] = L.dim[3] = 1;
        L.max_steps = h->max_steps;
        L.data = data; L.sizes = sizes; L.shapes = shapes;
        simt_context *c = ctx.handle();
        auto direct = [&]() {
            if (c->is_cuda) {
                c->cu.cuLaunchKernel(h->function, (unsigned)L.grid[0], 1, 1, 256, 1, 1, 0, nullptr, params, nullptr);
            } else {
                h->run(&L);
            }
        };
        auto through_simt = [&]() { k.launch({n}, {2.0f, ax, ay}); };

        // enqueue cost: batches of 256 launches (below the driver's queue depth), synchronized
        // between batches and not timed there
        auto per_launch = [&](auto &&launch) {
            for (int i = 0; i < 512; i++) launch();
            ctx.synchronize();
            double total = 0;
            int done = 0;
            while (done < launches) {
                auto t = Clock::now();
                for (int i = 0; i < 256; i++) launch();
                total += since(t);
                done += 256;
                ctx.synchronize();
            }
            return total / done * 1e6;
        };
        auto roundtrip = [&](auto &&launch) {
            int count = launches / 10;
            auto t = Clock::now();
            for (int i = 0; i < count; i++) { launch(); ctx.synchronize(); }
            return since(t) / count * 1e6;
        };
        // alternated, twice each: the second of each pair is reported
        double simt_us = per_launch(through_simt), direct_us = per_launch(direct);
        simt_us = per_launch(through_simt);
        direct_us = per_launch(direct);
        double simt_rt = roundtrip(through_simt), direct_rt = roundtrip(direct);
        simt_rt = roundtrip(through_simt);
        direct_rt = roundtrip(direct);
        ctx.free(x);
        ctx.free(y);
        std::printf("{\"device\": \"%s\", \"launches\": %d, \"context_ms\": %.4f, \"load_ms\": %.4f, "
                    "\"first_launch_ms\": %.4f, \"load_to_first_ms\": %.4f, \"simt_launch_us\": %.4f, "
                    "\"direct_launch_us\": %.4f, \"simt_roundtrip_us\": %.4f, \"direct_roundtrip_us\": %.4f}\n",
                    device.c_str(), launches, context_s * 1e3, load_s * 1e3, first_s * 1e3,
                    (load_s + first_s) * 1e3, simt_us, direct_us, simt_rt, direct_rt);
    } catch (const simt::Error &e) {
        std::fprintf(stderr, "simt::Error: %s\n", e.what());
        return 3;
    }
    return 0;
}
