// A C++ program passing the struct parameters of tests/test_aot_kernels.py's struct_params as
// the struct_params.h that simt.build_kernel writes defines them (compiled by tests/test_aot.py
// and tests/test_aot_gpu.py with -I the build directory):
//   prog run DEVICE DIR N VALUES...   launches over N threads, prints "out_bits id" per thread
//   prog bad DEVICE DIR VALUES...      makes struct calls that do not fit, prints each message
// VALUES: scale, then Body's fields, then Material's (test_aot_kernels.struct_argv).
#include "struct_params.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <vector>

static char **arg;
static float F() { return strtof(*arg++, nullptr); }
static double D() { return strtod(*arg++, nullptr); }
static long I() { return strtol(*arg++, nullptr, 10); }

static void material(Material &m, bool glossy_byte_odd) {
    for (int r = 0; r < 2; r++) for (int c = 0; c < 2; c++) m.tint[r][c] = F();
    long g = I();
    m.glossy = g != 0;
    if (glossy_byte_odd && g) { unsigned char odd = 0x40; std::memcpy(&m.glossy, &odd, 1); }
    m.weight = D();
    m.level = (int8_t)I();
    m.half = (uint16_t)I();                /* float16 bits */
}

int main(int argc, char **argv) {
    try {
        std::string mode = argv[1];
        simt::Context ctx(argv[2]);
        simt::Kernel k = ctx.load_kernel("struct_params", argv[3]);
        int64_t n = mode == "run" ? atoll(argv[4]) : 32;
        arg = argv + (mode == "run" ? 5 : 4);
        float scale = F();
        Body b;
        std::memset(&b, 0, sizeof b);
        for (int c = 0; c < 3; c++) b.position[c] = F();
        b.mass = F();
        b.id = (int32_t)I();
        material(b.material, true);        /* a bool byte of 0x40 means true, as in C */
        b.flags = (uint8_t)I();
        Material extra;
        std::memset(&extra, 0, sizeof extra);
        material(extra, false);
        float *out = (float *)ctx.alloc(n * sizeof(float));
        int32_t *ids = (int32_t *)ctx.alloc(n * sizeof(int32_t));
        simt::Array<float> aout(ctx, out, {n});
        simt::Array<int32_t> aids(ctx, ids, {n});
        if (mode == "run") {
            // Body through its struct_traits (name and size checked); Material as bytes
            k.launch({n}, {b, scale, simt::Arg::structure(extra), aout, aids});
            ctx.synchronize();
            std::vector<float> hout(n);
            std::vector<int32_t> hids(n);
            aout.copy_to(hout.data());
            aids.copy_to(hids.data());
            for (int64_t i = 0; i < n; i++) {
                uint32_t bits;
                std::memcpy(&bits, &hout[i], 4);
                std::printf("%08x %d\n", bits, hids[i]);
            }
        } else {
            auto attempt = [&](const char *what, std::initializer_list<simt::Arg> args) {
                try {
                    k.launch({n}, args);
                    std::cout << what << ": accepted\n";
                } catch (const simt::Error &e) {
                    std::cout << what << ": " << e.what() << "\n";
                }
            };
            attempt("short", {simt::Arg::structure(nullptr, &b, sizeof b - 8), scale, extra, aout, aids});
            attempt("long", {simt::Arg::structure("Body", &b, sizeof b + 1), scale, extra, aout, aids});
            attempt("name", {simt::Arg::structure("Particle", &b, sizeof b), scale, extra, aout, aids});
            attempt("other struct", {extra, scale, extra, aout, aids});
            attempt("scalar for struct", {b, scale, 1.0f, aout, aids});
            attempt("struct for scalar", {b, extra, extra, aout, aids});
            attempt("struct for array", {b, scale, extra, extra, aids});
            attempt("null", {simt::Arg::structure("Body", nullptr, sizeof b), scale, extra, aout, aids});
            attempt("good", {b, scale, extra, aout, aids});
        }
        ctx.free(out);
        ctx.free(ids);
    } catch (const simt::Error &e) {
        std::cerr << "simt::Error: " << e.what() << "\n";
        return 3;
    }
    (void)argc;
    return 0;
}
