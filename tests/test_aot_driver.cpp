// A C++ program against simt/runtime.hpp, for tests/test_aot.py (compiled there with g++).
//   driver run JOB        runs the launch JOB describes, writes each array back to PATH.out
//   driver badcalls DEV DIR   makes calls that do not fit saxpy's manifest, prints each message
//   driver reload DEV NAME DIR  launches, waits for a line on stdin, reloads, launches again
// JOB lines: "device D", "kernel NAME DIR", "dim N...", "block B",
//            "scalar DTYPE HEXBYTES", "array DTYPE NDIM SHAPE... PATH"
#include <simt/runtime.hpp>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

static std::vector<char> read_all(const std::string &path) {
    std::ifstream f(path, std::ios::binary);
    return std::vector<char>((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

static int dtype_code(const std::string &name) {
    int k = simt_dtype_code(name.c_str());
    if (k < 0) throw std::runtime_error("unknown dtype " + name);
    return k;
}

static int run_job(const std::string &job_path) {
    std::ifstream job(job_path);
    std::string line, device, name, dir;
    std::vector<int64_t> dim;
    int block = 0;
    struct ArrayIn { int dtype; std::vector<int64_t> shape; std::string path; std::vector<char> host; void *dev; };
    std::vector<ArrayIn> arrays;
    std::vector<std::pair<int, std::vector<unsigned char>>> scalars;
    std::vector<int> order;   // per argument: index into arrays (>= 0) or -(scalar index) - 1
    while (std::getline(job, line)) {
        std::istringstream in(line);
        std::string word;
        in >> word;
        if (word == "device") in >> device;
        else if (word == "kernel") in >> name >> dir;
        else if (word == "dim") { int64_t d; while (in >> d) dim.push_back(d); }
        else if (word == "block") in >> block;
        else if (word == "scalar") {
            std::string dt, hex;
            in >> dt >> hex;
            std::vector<unsigned char> bytes;
            for (size_t i = 0; i + 1 < hex.size(); i += 2) bytes.push_back((unsigned char)std::stoi(hex.substr(i, 2), nullptr, 16));
            order.push_back(-(int)scalars.size() - 1);
            scalars.push_back({dtype_code(dt), bytes});
        } else if (word == "array") {
            ArrayIn a;
            std::string dt;
            int ndim;
            in >> dt >> ndim;
            a.dtype = dtype_code(dt);
            for (int d = 0; d < ndim; d++) { int64_t s; in >> s; a.shape.push_back(s); }
            in >> a.path;
            a.host = read_all(a.path);
            order.push_back((int)arrays.size());
            arrays.push_back(a);
        }
    }
    simt::Context ctx(device);
    simt::Kernel k = ctx.load_kernel(name, dir);
    std::vector<simt::Arg> args;
    for (ArrayIn &a : arrays) {
        a.dev = ctx.alloc(a.host.size());
        ctx.copy_to_device(a.dev, a.host.data(), a.host.size());
    }
    for (int o : order) {
        if (o >= 0) args.push_back(simt::Arg::array(arrays[o].dtype, arrays[o].dev, arrays[o].shape));
        else {
            const auto &sc = scalars[-o - 1];
            int ncomp = (int)sc.second.size() / simt_dtype_sizes[sc.first];
            args.push_back(simt::Arg::scalar(sc.first, sc.second.data(), ncomp));
        }
    }
    k.launch(dim, args, block);
    ctx.synchronize();
    for (ArrayIn &a : arrays) {
        ctx.copy_to_host(a.host.data(), a.dev, a.host.size());
        std::ofstream out(a.path + ".out", std::ios::binary);
        out.write(a.host.data(), a.host.size());
        ctx.free(a.dev);
    }
    return 0;
}

// saxpy(a: float, x: array(float), y: array(float)), called wrongly in every way checked
static int bad_calls(const std::string &device, const std::string &dir) {
    simt::Context ctx(device);
    simt::Kernel k = ctx.load_kernel("saxpy", dir);
    const int64_t n = 64;
    float *x = (float *)ctx.alloc(n * sizeof(float));
    float *y = (float *)ctx.alloc(n * sizeof(float));
    double *z = (double *)ctx.alloc(n * sizeof(double));
    int32_t *w = (int32_t *)ctx.alloc(n * n * sizeof(int32_t));
    simt::Array<float> ax(ctx, x, {n}), ay(ctx, y, {n}), a2(ctx, y, {8, 8});
    simt::Array<double> az(ctx, z, {n});
    simt::Array<int32_t> aw(ctx, w, {n});
    int refused = 0;
    auto attempt = [&](const char *what, auto &&call) {
        try {
            call();
            std::cout << what << ": accepted\n";
        } catch (const simt::Error &e) {
            std::cout << what << ": " << e.what() << "\n";
            refused++;
        }
    };
    attempt("count", [&] { k.launch({n}, {2.0f, ax}); });
    attempt("scalar dtype", [&] { k.launch({n}, {2.0, ax, ay}); });
    attempt("array dtype", [&] { k.launch({n}, {2.0f, az, ay}); });
    attempt("int array", [&] { k.launch({n}, {2.0f, ax, aw}); });
    attempt("ndim", [&] { k.launch({n}, {2.0f, ax, a2}); });
    attempt("kind", [&] { k.launch({n}, {ax, ax, ay}); });
    attempt("dim", [&] { k.launch({8, 8}, {2.0f, ax, ay}); });
    attempt("good", [&] { k.launch({n}, {2.0f, ax, ay}); });
    attempt("missing kernel", [&] { ctx.load_kernel("saxpy", dir + "/nowhere"); });
    attempt("wrong name", [&] { ctx.load_kernel("other", dir); });
    ctx.synchronize();
    ctx.free(x); ctx.free(y); ctx.free(z); ctx.free(w);
    std::cout << "refused " << refused << "\n";
    return 0;
}

// hot reload: the same handle runs the rebuilt code after load_kernel on the same name
static int reload(const std::string &device, const std::string &name, const std::string &dir) {
    simt::Context ctx(device);
    simt::Kernel k = ctx.load_kernel(name, dir);
    const int64_t n = 8;
    int32_t host[n];
    int32_t *out = (int32_t *)ctx.alloc(sizeof host);
    simt::Array<int32_t> a(ctx, out, {n});
    for (int round = 0; round < 2; round++) {
        if (round == 1) {
            std::string line;
            std::getline(std::cin, line);          // the test rebuilt the kernel meanwhile
            ctx.load_kernel(name, dir);
        }
        k.launch({n}, {a});
        ctx.synchronize();
        a.copy_to(host);
        std::cout << "generation " << k.generation() << ":";
        for (int i = 0; i < n; i++) std::cout << " " << host[i];
        std::cout << std::endl;
    }
    ctx.free(out);
    return 0;
}

int main(int argc, char **argv) {
    try {
        std::string mode = argc > 1 ? argv[1] : "";
        if (mode == "run" && argc == 3) return run_job(argv[2]);
        if (mode == "badcalls" && argc == 4) return bad_calls(argv[2], argv[3]);
        if (mode == "reload" && argc == 5) return reload(argv[2], argv[3], argv[4]);
        std::cerr << "usage: driver run JOB | badcalls DEVICE DIR | reload DEVICE NAME DIR\n";
        return 2;
    } catch (const simt::Error &e) {
        std::cerr << "simt::Error: " << e.what() << "\n";
        return 3;
    }
}
