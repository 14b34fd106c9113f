// simt's C++ runtime: kernels built by simt.build_kernel, loaded and launched without Python.
//
//   simt::Context ctx("cuda:0");                               // or "cpu"
//   simt::Kernel k = ctx.load_kernel("saxpy", "build/saxpy");  // build_kernel's out_dir
//   simt::Array<float> x(ctx, xptr, {n}), y(ctx, yptr, {n});    // device pointers on cuda
//   k.launch({n}, {2.0f, x, y});
//   ctx.synchronize();
//   y.copy_to(host);
//
// A struct parameter takes a value of the C struct that build_kernel's <kernel>.h defines
// (k.launch({n}, {body, out}): name and size checked), or simt::Arg::structure(value) for a
// struct of your own with that layout (size checked); the bytes are copied into the Arg.
//
// Every failure throws simt::Error with the C runtime's message (runtime.h): a call that does
// not fit the manifest names the kernel and the parameter. Header only; link with
// `python -m simt config --libs`.
#ifndef SIMT_RUNTIME_HPP
#define SIMT_RUNTIME_HPP

#include <array>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <stdexcept>
#include <type_traits>
#include <string>
#include <vector>

#include "runtime.h"

namespace simt {

class Error : public std::runtime_error {
public:
    Error(int code, const std::string &what) : std::runtime_error(what), code_(code) {}
    int code() const { return code_; }

private:
    int code_;
};

inline void check(int rc) {
    if (rc != 0) throw Error(rc, simt_last_error());
}

template <class T> struct dtype_of;
template <> struct dtype_of<bool> { static constexpr int value = SIMT_BOOL; };
template <> struct dtype_of<int8_t> { static constexpr int value = SIMT_INT8; };
template <> struct dtype_of<uint8_t> { static constexpr int value = SIMT_UINT8; };
template <> struct dtype_of<int16_t> { static constexpr int value = SIMT_INT16; };
template <> struct dtype_of<uint16_t> { static constexpr int value = SIMT_UINT16; };
template <> struct dtype_of<int32_t> { static constexpr int value = SIMT_INT32; };
template <> struct dtype_of<uint32_t> { static constexpr int value = SIMT_UINT32; };
template <> struct dtype_of<int64_t> { static constexpr int value = SIMT_INT64; };
template <> struct dtype_of<uint64_t> { static constexpr int value = SIMT_UINT64; };
template <> struct dtype_of<float> { static constexpr int value = SIMT_FLOAT32; };
template <> struct dtype_of<double> { static constexpr int value = SIMT_FLOAT64; };

// The structs of a kernel's struct parameters: simt.build_kernel writes <kernel>.h next to the
// manifest, which defines each as a plain C struct and specialises struct_traits with its name.
template <class T> struct struct_traits;

class Kernel;

class Context {
public:
    explicit Context(const std::string &device) { check(simt_context_create(device.c_str(), &ctx_)); }
    ~Context() { simt_context_destroy(ctx_); }
    Context(const Context &) = delete;
    Context &operator=(const Context &) = delete;

    // Loads (or, for a name already loaded, reloads in place) a built kernel.
    inline Kernel load_kernel(const std::string &name, const std::string &dir);
    void synchronize() { check(simt_synchronize(ctx_)); }
    bool is_cuda() const { return ctx_->is_cuda != 0; }

    // Memory the kernels can use: device memory on cuda, host memory on cpu.
    void *alloc(size_t bytes) { void *p = nullptr; check(simt_alloc(ctx_, bytes, &p)); return p; }
    void free(void *p) { check(simt_free(ctx_, p)); }
    void copy_to_device(void *dst, const void *src, size_t bytes) { check(simt_copy_to_device(ctx_, dst, src, bytes)); }
    void copy_to_host(void *dst, const void *src, size_t bytes) { check(simt_copy_to_host(ctx_, dst, src, bytes)); }
    simt_context *handle() const { return ctx_; }

private:
    simt_context *ctx_ = nullptr;
};

// A view of memory the caller owns (device pointers on cuda, host pointers on cpu).
template <class T> class Array {
public:
    Array(Context &ctx, T *ptr, std::initializer_list<int64_t> shape) : ctx_(&ctx), ptr_(ptr) {
        if (shape.size() < 1 || shape.size() > 4) throw Error(SIMT_ERROR_USAGE, "simt::Array takes 1 to 4 extents");
        for (int64_t s : shape) shape_.push_back(s);
    }
    T *data() const { return ptr_; }
    int ndim() const { return (int)shape_.size(); }
    const std::vector<int64_t> &shape() const { return shape_; }
    int64_t size() const { int64_t n = 1; for (int64_t s : shape_) n *= s; return n; }
    void copy_to(T *host) const { ctx_->copy_to_host(host, ptr_, size() * sizeof(T)); }
    void copy_from(const T *host) { ctx_->copy_to_device(ptr_, host, size() * sizeof(T)); }

private:
    Context *ctx_;
    T *ptr_;
    std::vector<int64_t> shape_;
};

// One launch argument: a scalar of an exact type, an Array, or a struct (a copy of its bytes).
class Arg {
public:
    template <class T, class = decltype(dtype_of<T>::value)>
    Arg(T value) { arg_ = simt_scalar_arg(dtype_of<T>::value, &value); }
    // a vector, matrix (row by row), quaternion or transform value: its components in order
    template <class T, size_t N, class = decltype(dtype_of<T>::value)>
    Arg(const std::array<T, N> &v) { arg_ = simt_values_arg(dtype_of<T>::value, v.data(), (int)N); }
    template <class T> Arg(const Array<T> &a) {
        arg_ = simt_array_arg(dtype_of<T>::value, a.data(), a.ndim(), a.shape().data());
    }
    // a struct defined by <kernel>.h: its name and size are checked against the manifest
    template <class T, class = decltype(struct_traits<T>::name)>
    Arg(const T &value) { *this = structure(struct_traits<T>::name, &value, sizeof(T)); }
    // a struct of your own with the layout <kernel>.h documents: its size is checked
    template <class T> static Arg structure(const T &value) {
        static_assert(std::is_trivially_copyable<T>::value, "a struct argument is copied as bytes");
        return structure(nullptr, &value, sizeof(T));
    }
    // the bytes of a struct (type_name nullptr: only the size is checked); they are copied
    static Arg structure(const char *type_name, const void *bytes, size_t size) {
        Arg a(simt_struct_arg(type_name, nullptr, size));
        a.bytes_ = std::make_shared<std::vector<unsigned char>>(
            (const unsigned char *)bytes, (const unsigned char *)bytes + (bytes ? size : 0));
        a.arg_.ptr = bytes ? a.bytes_->data() : nullptr;
        return a;
    }
    // For programs that learn the types at run time (dtype: SIMT_FLOAT32...).
    static Arg scalar(int dtype, const void *value, int ncomp = 1) {
        return Arg(simt_values_arg(dtype, value, ncomp));
    }
    static Arg array(int dtype, void *ptr, const std::vector<int64_t> &shape) {
        return Arg(simt_array_arg(dtype, ptr, (int)shape.size(), shape.data()));
    }
    const simt_arg &get() const { return arg_; }

private:
    explicit Arg(const simt_arg &a) : arg_(a) {}
    simt_arg arg_;
    std::shared_ptr<std::vector<unsigned char>> bytes_;   // a struct's copy, shared by copies of Arg
};

class Kernel {
public:
    explicit Kernel(simt_kernel *k) : k_(k) {}
    // Runs over dim (numpy order); block_dim 0 takes the manifest's block size.
    void launch(std::initializer_list<int64_t> dim, std::initializer_list<Arg> args, int block_dim = 0) const {
        std::vector<int64_t> d(dim);
        std::vector<simt_arg> a;
        a.reserve(args.size());
        for (const Arg &x : args) a.push_back(x.get());
        check(simt_launch(k_, (int)d.size(), d.data(), a.data(), (int)a.size(), block_dim));
    }
    void launch(const std::vector<int64_t> &dim, const std::vector<Arg> &args, int block_dim = 0) const {
        std::vector<simt_arg> a;
        a.reserve(args.size());
        for (const Arg &x : args) a.push_back(x.get());
        check(simt_launch(k_, (int)dim.size(), dim.data(), a.data(), (int)a.size(), block_dim));
    }
    const char *name() const { return k_->name; }
    int generation() const { return k_->generation; }
    simt_kernel *handle() const { return k_; }

private:
    simt_kernel *k_;
};

inline Kernel Context::load_kernel(const std::string &name, const std::string &dir) {
    simt_kernel *k = nullptr;
    check(simt_load_kernel(ctx_, name.c_str(), dir.c_str(), &k));
    return Kernel(k);
}

}  // namespace simt

#endif  // SIMT_RUNTIME_HPP
