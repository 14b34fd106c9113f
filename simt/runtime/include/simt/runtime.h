/* simt's C runtime: loads kernels built by simt.build_kernel and launches them, with no Python.
 *
 * Header only: include it in C or C++ (runtime.hpp wraps it in classes and exceptions) and
 * link with the flags `python -m simt config --libs` prints (-ldl -lpthread). The CUDA driver
 * (libcuda) is opened with dlopen when a "cuda" context is made, so a CPU-only program needs
 * no CUDA at build or run time; nothing links libpython.
 *
 * Every call returns 0 or an error code; simt_last_error() holds the message (per thread),
 * which names the kernel and the parameter for a call that does not fit the manifest, and
 * the driver call and its error name for a driver failure.
 *
 * A struct argument is the bytes of the C struct that build_kernel's <kernel>.h defines
 * (simt_arg_NAME(&value) there, or simt_struct_arg): its kind, name and size are checked, its
 * array fields (simt_array_view) checked as array arguments, and each field is passed to the
 * kernel as the scalar or array parameters it was compiled with.
 *
 * Hot reload: simt_load_kernel with a name already loaded in the context replaces that
 * kernel's code in place (handles stay valid); a launch in progress on another thread
 * finishes on the old code first.
 */
#ifndef SIMT_RUNTIME_H
#define SIMT_RUNTIME_H

#include <dlfcn.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SIMT_RT static __attribute__((unused))

enum { SIMT_OK = 0, SIMT_ERROR_USAGE = 1, SIMT_ERROR_ARGUMENT = 2, SIMT_ERROR_LOAD = 3,
       SIMT_ERROR_DRIVER = 4, SIMT_ERROR_KERNEL = 5 };
enum { SIMT_SCALAR = 0, SIMT_ARRAY = 1, SIMT_STRUCT = 2 };
/* dtypes, in simt's Scalar order */
enum { SIMT_BOOL, SIMT_INT8, SIMT_UINT8, SIMT_INT16, SIMT_UINT16, SIMT_INT32, SIMT_UINT32,
       SIMT_INT64, SIMT_UINT64, SIMT_FLOAT16, SIMT_BFLOAT16, SIMT_FLOAT32, SIMT_FLOAT64,
       SIMT_NDTYPES };
static const char *const simt_dtype_names[SIMT_NDTYPES] = {
    "bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64",
    "float16", "bfloat16", "float32", "float64"};
static const int simt_dtype_sizes[SIMT_NDTYPES] = {1, 1, 1, 2, 2, 4, 4, 8, 8, 2, 2, 4, 8};

/* One launch argument: a scalar value (ncomp > 1: a vector, matrix, quaternion or transform,
   its components in order), an array (pointer and shape) or a struct (pointer to the bytes of
   the C struct the kernel's <kernel>.h defines, their size, and the struct's name or NULL). */
typedef struct simt_arg {
    int kind, dtype, ndim, ncomp;
    void *ptr;
    int64_t shape[4];
    unsigned char value[128];
    int64_t nbytes;                      /* struct: sizeof the caller's struct */
    const char *type_name;               /* struct: its name, or NULL to check the size alone */
} simt_arg;

/* The CPU kernel's launch record (the same as simt/aot/c_codegen.py's LAUNCH_STRUCT). */
typedef struct simt_cpu_launch {
    int64_t block[3], grid[3], dim[4], max_steps;
    void *const *data;
    const int64_t *sizes;
    const int64_t *shapes;
    int64_t err[8];
} simt_cpu_launch;

/* An array field of a struct argument (<kernel>.h declares it so): the array's first scalar
   (a device pointer on cuda) and its extents in numpy order, unused ones ignored. */
typedef struct simt_array_view { void *data; int64_t shape[4]; } simt_array_view;

/* a struct parameter's value or array field: kind (SIMT_SCALAR or SIMT_ARRAY), dtype,
   components (per element for an array), ndim, byte offset in the struct, and its path */
typedef struct simt_leaf { int kind, dtype, ncomp, ndim; int64_t offset; char path[96]; } simt_leaf;

typedef struct simt_param_info {
    char name[128], element[128];        /* element: vec3, mat22...; a struct's name */
    int kind, dtype, ndim, ncomp;        /* a struct's ncomp: its scalars, all fields */
    int64_t nbytes;                      /* struct: its C size */
    int nleaves;
    simt_leaf *leaves;                   /* struct: its scalar fields in parameter order */
} simt_param_info;

typedef struct simt_cuda_api {
    void *lib;
    int (*cuInit)(unsigned);
    int (*cuDeviceGet)(int *, int);
    int (*cuDevicePrimaryCtxRetain)(void **, int);
    int (*cuCtxSetCurrent)(void *);
    int (*cuModuleLoadData)(void **, const void *);
    int (*cuModuleGetFunction)(void **, void *, const char *);
    int (*cuModuleUnload)(void *);
    int (*cuLaunchKernel)(void *, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                          unsigned, void *, void **, void **);
    int (*cuCtxSynchronize)(void);
    int (*cuMemAlloc)(unsigned long long *, size_t);
    int (*cuMemFree)(unsigned long long);
    int (*cuMemcpyHtoD)(unsigned long long, const void *, size_t);
    int (*cuMemcpyDtoH)(void *, unsigned long long, size_t);
    int (*cuGetErrorName)(int, const char **);
} simt_cuda_api;

typedef struct simt_context simt_context;

typedef struct simt_kernel {
    simt_context *ctx;
    char name[256], dir[1024], entry[256];
    int nparams;
    simt_param_info *params;
    int block_dim, dim_ndim;
    int grid_mapping;                    /* 0: Warp's linear mapping; 1: an n-d grid */
    int block_nd[3];                     /* grid mapping: block extents, numpy order */
    int64_t max_steps, shared_bytes;
    int generation;                      /* how many times it was (re)loaded */
    void *lib;                           /* cpu: the shared library */
    int (*run)(simt_cpu_launch *);
    const char *(*where)(int);
    void *module, *function;             /* cuda */
} simt_kernel;

struct simt_context {
    int is_cuda, ordinal;
    simt_cuda_api cu;
    void *cu_ctx;
    pthread_mutex_t lock;
    simt_kernel **kernels;
    int nkernels;
};

/* ---- errors ------------------------------------------------------------------------------ */
static __thread char simt_error_text[2048];

SIMT_RT const char *simt_last_error(void) { return simt_error_text; }

SIMT_RT int simt_fail(int code, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(simt_error_text, sizeof simt_error_text, fmt, ap);
    va_end(ap);
    return code;
}

/* ---- a small JSON reader (the manifest) --------------------------------------------------- */
typedef struct simt_json {
    int type;                  /* 0 null, 1 bool, 2 number, 3 string, 4 array, 5 object */
    double num;
    char *str;
    int n;
    struct simt_json *items;
    char **keys;
} simt_json;

SIMT_RT void simt_json_free(simt_json *j) {
    for (int i = 0; i < j->n; i++) {
        simt_json_free(&j->items[i]);
        if (j->keys) free(j->keys[i]);
    }
    free(j->items); free(j->keys); free(j->str);
    memset(j, 0, sizeof *j);
}

SIMT_RT const char *simt_json_ws(const char *p) {
    while (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t') p++;
    return p;
}

SIMT_RT const char *simt_json_string(const char *p, char **out) {
    size_t cap = 16, n = 0;
    char *s = (char *)malloc(cap);
    if (!s || *p != '"') { free(s); return NULL; }
    for (p++; *p && *p != '"'; p++) {
        char c = *p;
        if (c == '\\') {
            p++;
            c = *p == 'n' ? '\n' : *p == 't' ? '\t' : *p == 'u' ? '?' : *p;
            if (*p == 'u') { if (!p[1] || !p[2] || !p[3] || !p[4]) { free(s); return NULL; } p += 4; }
        }
        if (n + 2 > cap) { char *t = (char *)realloc(s, cap *= 2); if (!t) { free(s); return NULL; } s = t; }
        s[n++] = c;
    }
    if (*p != '"') { free(s); return NULL; }
    s[n] = 0;
    *out = s;
    return p + 1;
}

SIMT_RT const char *simt_json_value(const char *p, simt_json *out, int depth) {
    memset(out, 0, sizeof *out);
    p = simt_json_ws(p);
    if (depth > 32) return NULL;
    if (*p == '{' || *p == '[') {
        int obj = *p == '{';
        out->type = obj ? 5 : 4;
        p = simt_json_ws(p + 1);
        if (*p == (obj ? '}' : ']')) return p + 1;
        for (;;) {
            char *key = NULL;
            if (obj) {
                p = simt_json_string(simt_json_ws(p), &key);
                if (!p) return NULL;
                p = simt_json_ws(p);
                if (*p != ':') { free(key); return NULL; }
                p++;
            }
            simt_json *items = (simt_json *)realloc(out->items, (out->n + 1) * sizeof(simt_json));
            char **keys = obj ? (char **)realloc(out->keys, (out->n + 1) * sizeof(char *)) : NULL;
            if (!items || (obj && !keys)) { free(key); return NULL; }
            out->items = items;
            if (obj) { out->keys = keys; out->keys[out->n] = key; }
            p = simt_json_value(p, &out->items[out->n], depth + 1);
            out->n++;
            if (!p) return NULL;
            p = simt_json_ws(p);
            if (*p == ',') { p++; continue; }
            if (*p == (obj ? '}' : ']')) return p + 1;
            return NULL;
        }
    }
    if (*p == '"') { out->type = 3; return simt_json_string(p, &out->str); }
    if (!strncmp(p, "true", 4)) { out->type = 1; out->num = 1; return p + 4; }
    if (!strncmp(p, "false", 5)) { out->type = 1; return p + 5; }
    if (!strncmp(p, "null", 4)) { return p + 4; }
    char *end;
    out->num = strtod(p, &end);
    if (end == p) return NULL;
    out->type = 2;
    return end;
}

SIMT_RT const simt_json *simt_json_get(const simt_json *j, const char *key) {
    if (!j || j->type != 5) return NULL;
    for (int i = 0; i < j->n; i++) if (!strcmp(j->keys[i], key)) return &j->items[i];
    return NULL;
}

SIMT_RT const char *simt_json_str(const simt_json *j, const char *key) {
    const simt_json *v = simt_json_get(j, key);
    return v && v->type == 3 ? v->str : NULL;
}

SIMT_RT double simt_json_num(const simt_json *j, const char *key, double fallback) {
    const simt_json *v = simt_json_get(j, key);
    return v && v->type == 2 ? v->num : fallback;
}

SIMT_RT int simt_dtype_code(const char *name) {
    for (int k = 0; k < SIMT_NDTYPES; k++) if (name && !strcmp(name, simt_dtype_names[k])) return k;
    return -1;
}

SIMT_RT char *simt_read_file(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = (char *)malloc(n + 1);
    if (buf && fread(buf, 1, n, f) != (size_t)n) { free(buf); buf = NULL; }
    fclose(f);
    if (buf) { buf[n] = 0; if (size) *size = (size_t)n; }
    return buf;
}

/* ---- the CUDA driver, opened at run time ---------------------------------------------------- */
SIMT_RT const char *simt_cu_name(simt_context *c, int err) {
    const char *name = NULL;
    if (c->cu.cuGetErrorName && c->cu.cuGetErrorName(err, &name) == 0 && name) return name;
    return "an unknown CUresult";
}

#define SIMT_CU(c, call, what) do { int simt_e_ = (call); if (simt_e_ != 0) \
    return simt_fail(SIMT_ERROR_DRIVER, "%s failed with %s", what, simt_cu_name(c, simt_e_)); } while (0)

SIMT_RT int simt_cuda_open(simt_context *c) {
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) lib = dlopen("libcuda.so", RTLD_NOW | RTLD_LOCAL);
    if (!lib) return simt_fail(SIMT_ERROR_DRIVER, "device 'cuda:%d': the NVIDIA driver (libcuda.so.1) "
                               "could not be loaded: %s", c->ordinal, dlerror());
    c->cu.lib = lib;
#define SIMT_SYM(field, sym) do { *(void **)&c->cu.field = dlsym(lib, sym); if (!c->cu.field) \
    return simt_fail(SIMT_ERROR_DRIVER, "libcuda has no %s", sym); } while (0)
    SIMT_SYM(cuInit, "cuInit"); SIMT_SYM(cuDeviceGet, "cuDeviceGet");
    SIMT_SYM(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
    SIMT_SYM(cuCtxSetCurrent, "cuCtxSetCurrent"); SIMT_SYM(cuModuleLoadData, "cuModuleLoadData");
    SIMT_SYM(cuModuleGetFunction, "cuModuleGetFunction"); SIMT_SYM(cuModuleUnload, "cuModuleUnload");
    SIMT_SYM(cuLaunchKernel, "cuLaunchKernel"); SIMT_SYM(cuCtxSynchronize, "cuCtxSynchronize");
    SIMT_SYM(cuMemAlloc, "cuMemAlloc_v2"); SIMT_SYM(cuMemFree, "cuMemFree_v2");
    SIMT_SYM(cuMemcpyHtoD, "cuMemcpyHtoD_v2"); SIMT_SYM(cuMemcpyDtoH, "cuMemcpyDtoH_v2");
    SIMT_SYM(cuGetErrorName, "cuGetErrorName");
#undef SIMT_SYM
    int dev = 0;
    SIMT_CU(c, c->cu.cuInit(0), "cuInit");
    SIMT_CU(c, c->cu.cuDeviceGet(&dev, c->ordinal), "cuDeviceGet");
    SIMT_CU(c, c->cu.cuDevicePrimaryCtxRetain(&c->cu_ctx, dev), "cuDevicePrimaryCtxRetain");
    SIMT_CU(c, c->cu.cuCtxSetCurrent(c->cu_ctx), "cuCtxSetCurrent");
    return 0;
}

/* ---- contexts ------------------------------------------------------------------------------- */
SIMT_RT int simt_context_create(const char *device, simt_context **out) {
    *out = NULL;
    simt_context *c = (simt_context *)calloc(1, sizeof *c);
    if (!c) return simt_fail(SIMT_ERROR_USAGE, "out of memory");
    pthread_mutex_init(&c->lock, NULL);
    if (device && !strcmp(device, "cpu")) {
        c->is_cuda = 0;
    } else if (device && (!strcmp(device, "cuda") || !strncmp(device, "cuda:", 5))) {
        c->is_cuda = 1;
        c->ordinal = device[4] == ':' ? atoi(device + 5) : 0;
        int rc = simt_cuda_open(c);
        if (rc) { free(c); return rc; }
    } else {
        free(c);
        return simt_fail(SIMT_ERROR_USAGE, "unknown device '%s': use \"cpu\", \"cuda\" or \"cuda:N\"",
                         device ? device : "(null)");
    }
    *out = c;
    return 0;
}

SIMT_RT void simt_kernel_unload(simt_kernel *k) {
    if (k->lib) dlclose(k->lib);
    if (k->module && k->ctx->is_cuda) k->ctx->cu.cuModuleUnload(k->module);
    for (int i = 0; k->params && i < k->nparams; i++) free(k->params[i].leaves);
    free(k->params);
    k->lib = k->module = k->function = NULL;
    k->params = NULL;
}

SIMT_RT void simt_context_destroy(simt_context *c) {
    if (!c) return;
    for (int i = 0; i < c->nkernels; i++) { simt_kernel_unload(c->kernels[i]); free(c->kernels[i]); }
    free(c->kernels);
    pthread_mutex_destroy(&c->lock);
    free(c);
}

SIMT_RT int simt_synchronize(simt_context *c) {
    if (!c->is_cuda) return 0;
    SIMT_CU(c, c->cu.cuCtxSetCurrent(c->cu_ctx), "cuCtxSetCurrent");
    SIMT_CU(c, c->cu.cuCtxSynchronize(), "cuCtxSynchronize");
    return 0;
}

/* memory: device memory on cuda, host memory on cpu */
SIMT_RT int simt_alloc(simt_context *c, size_t bytes, void **ptr) {
    if (!c->is_cuda) {
        *ptr = calloc(1, bytes ? bytes : 1);
        return *ptr ? 0 : simt_fail(SIMT_ERROR_USAGE, "out of memory (%zu bytes)", bytes);
    }
    unsigned long long d = 0;
    SIMT_CU(c, c->cu.cuCtxSetCurrent(c->cu_ctx), "cuCtxSetCurrent");
    SIMT_CU(c, c->cu.cuMemAlloc(&d, bytes ? bytes : 1), "cuMemAlloc");
    *ptr = (void *)(uintptr_t)d;
    return 0;
}

SIMT_RT int simt_free(simt_context *c, void *ptr) {
    if (!c->is_cuda) { free(ptr); return 0; }
    SIMT_CU(c, c->cu.cuMemFree((unsigned long long)(uintptr_t)ptr), "cuMemFree");
    return 0;
}

SIMT_RT int simt_copy_to_device(simt_context *c, void *dst, const void *src, size_t bytes) {
    if (!c->is_cuda) { memmove(dst, src, bytes); return 0; }
    SIMT_CU(c, c->cu.cuCtxSetCurrent(c->cu_ctx), "cuCtxSetCurrent");
    SIMT_CU(c, c->cu.cuMemcpyHtoD((unsigned long long)(uintptr_t)dst, src, bytes), "cuMemcpyHtoD");
    return 0;
}

SIMT_RT int simt_copy_to_host(simt_context *c, void *dst, const void *src, size_t bytes) {
    if (!c->is_cuda) { memmove(dst, src, bytes); return 0; }
    SIMT_CU(c, c->cu.cuCtxSetCurrent(c->cu_ctx), "cuCtxSetCurrent");
    SIMT_CU(c, c->cu.cuMemcpyDtoH(dst, (unsigned long long)(uintptr_t)src, bytes), "cuMemcpyDtoH");
    return 0;
}

/* ---- loading ------------------------------------------------------------------------------ */
/* a struct parameter: its size and its scalar fields ("leaves"), each inside the struct */
SIMT_RT int simt_struct_fill(const char *name, const char *path, const simt_json *p, simt_param_info *q) {
    const simt_json *st = simt_json_get(p, "struct"), *leaves = simt_json_get(p, "leaves");
    q->dtype = -1;
    q->nbytes = (int64_t)simt_json_num(st, "size", -1);
    if (!st || q->nbytes < 1 || !leaves || leaves->type != 4)
        return simt_fail(SIMT_ERROR_LOAD, "kernel '%s': %s: struct parameter '%s' has no valid layout",
                         name, path, q->name);
    q->leaves = (simt_leaf *)calloc(leaves->n ? leaves->n : 1, sizeof(simt_leaf));
    if (!q->leaves) return simt_fail(SIMT_ERROR_USAGE, "out of memory");
    q->nleaves = leaves->n;
    int total = 0;
    for (int f = 0; f < leaves->n; f++) {
        const simt_json *jl = &leaves->items[f];
        simt_leaf *l = &q->leaves[f];
        const char *kind = simt_json_str(jl, "kind"), *lpath = simt_json_str(jl, "path");
        l->kind = kind && !strcmp(kind, "array") ? SIMT_ARRAY : SIMT_SCALAR;
        l->dtype = simt_dtype_code(simt_json_str(jl, "dtype"));
        l->ncomp = (int)simt_json_num(jl, "ncomp", 0);
        l->ndim = (int)simt_json_num(jl, "ndim", 0);
        l->offset = (int64_t)simt_json_num(jl, "offset", -1);
        snprintf(l->path, sizeof l->path, "%s", lpath ? lpath : "?");
        int64_t bytes = l->kind == SIMT_ARRAY ? (int64_t)sizeof(simt_array_view)
                                              : l->dtype >= 0 ? (int64_t)l->ncomp * simt_dtype_sizes[l->dtype] : 0;
        if (l->dtype < 0 || l->ncomp < 1 || l->offset < 0 || l->offset + bytes > q->nbytes ||
            (l->kind == SIMT_ARRAY && (l->ndim < 1 || l->ndim > 4)))
            return simt_fail(SIMT_ERROR_LOAD, "kernel '%s': %s: field '%s' of struct parameter '%s' does "
                             "not fit its %lld bytes", name, path, l->path, q->name, (long long)q->nbytes);
        if (l->kind == SIMT_SCALAR) total += l->ncomp;
    }
    if (total != q->ncomp)
        return simt_fail(SIMT_ERROR_LOAD, "kernel '%s': %s: struct parameter '%s' has %d scalars in its "
                         "fields, %d in ncomp", name, path, q->name, total, q->ncomp);
    return 0;
}

SIMT_RT int simt_manifest_fill(simt_context *c, const char *name, const char *dir, const char *path,
                               const simt_json *jp, simt_kernel *k, char *code_path, size_t code_len) {
    const simt_json j = *jp;
    (void)dir;
    const char *format = simt_json_str(&j, "format"), *kname = simt_json_str(&j, "kernel");
    const char *target = simt_json_str(&j, "target"), *entry = simt_json_str(&j, "entry");
    if (!format || strcmp(format, "simt-aot") || simt_json_num(&j, "format_version", 0) != 1) {
        return simt_fail(SIMT_ERROR_LOAD, "kernel '%s': %s is not a simt-aot manifest of version 1", name, path);
    }
    if (!kname || strcmp(kname, name)) {
        return simt_fail(SIMT_ERROR_LOAD, "kernel '%s': %s holds kernel '%s'", name, path, kname ? kname : "?");
    }
    if (!target || strcmp(target, c->is_cuda ? "cuda" : "cpu")) {
        return simt_fail(SIMT_ERROR_LOAD, "kernel '%s': %s was built for target '%s' but the context is %s",
                         name, path, target ? target : "?", c->is_cuda ? "cuda" : "cpu");
    }
    const simt_json *params = simt_json_get(&j, "params"), *launch = simt_json_get(&j, "launch");
    const simt_json *files = simt_json_get(&j, "files");
    const char *code = files ? simt_json_str(files, c->is_cuda ? "fatbin" : "library") : NULL;
    if (!params || params->type != 4 || !launch || !code || !entry) {
        return simt_fail(SIMT_ERROR_LOAD, "kernel '%s': %s lacks params, launch, entry or files", name, path);
    }
    snprintf(k->name, sizeof k->name, "%s", name);
    snprintf(k->dir, sizeof k->dir, "%s", dir);
    snprintf(k->entry, sizeof k->entry, "%s", entry);
    snprintf(code_path, code_len, "%s/%s", dir, code);
    const simt_json *bd = simt_json_get(launch, "block_dim");
    const char *mapping = simt_json_str(launch, "mapping");
    k->grid_mapping = mapping && !strcmp(mapping, "grid");
    if (!bd || bd->type != 4 || bd->n < 1 || bd->n > 3 || bd->items[0].type != 2)
        return simt_fail(SIMT_ERROR_LOAD, "kernel '%s': %s has no valid launch.block_dim", name, path);
    k->block_dim = 1;
    for (int i = 0; i < bd->n; i++) { k->block_nd[i] = (int)bd->items[i].num; k->block_dim *= k->block_nd[i]; }
    k->dim_ndim = (int)simt_json_num(launch, "dim_ndim", 1);
    k->max_steps = (int64_t)simt_json_num(&j, "max_steps", 1000000);
    k->shared_bytes = (int64_t)simt_json_num(&j, "shared_bytes", 0);
    k->nparams = params->n;
    k->params = (simt_param_info *)calloc(params->n ? params->n : 1, sizeof(simt_param_info));
    for (int i = 0; i < params->n; i++) {
        const simt_json *p = &params->items[i];
        simt_param_info *q = &k->params[i];
        const char *pname = simt_json_str(p, "name"), *kind = simt_json_str(p, "kind");
        snprintf(q->name, sizeof q->name, "%s", pname ? pname : "?");
        q->kind = kind && !strcmp(kind, "array") ? SIMT_ARRAY : kind && !strcmp(kind, "struct") ? SIMT_STRUCT
                                                                                             : SIMT_SCALAR;
        q->dtype = simt_dtype_code(simt_json_str(p, "dtype"));
        q->ndim = (int)simt_json_num(p, "ndim", 0);
        q->ncomp = (int)simt_json_num(p, "ncomp", 1);
        const char *element = simt_json_str(p, "element");
        snprintf(q->element, sizeof q->element, "%s", element ? element : "?");
        if (q->kind == SIMT_STRUCT) {
            int rc = simt_struct_fill(name, path, p, q);
            if (rc) return rc;
            continue;
        }
        if (q->ncomp < 1 || (q->kind == SIMT_SCALAR && q->ncomp * 8 > 128))
            return simt_fail(SIMT_ERROR_LOAD, "kernel '%s': parameter '%s' has %d components", name, q->name, q->ncomp);
        if (q->dtype < 0) { return simt_fail(SIMT_ERROR_LOAD, "kernel '%s': parameter '%s' has an unknown dtype", name, q->name); }
    }
    return 0;
}

SIMT_RT int simt_read_manifest(simt_context *c, const char *name, const char *dir, simt_kernel *k,
                               char *code_path, size_t code_len) {
    char path[1200];
    snprintf(path, sizeof path, "%s/manifest.json", dir);
    char *text = simt_read_file(path, NULL);
    if (!text) return simt_fail(SIMT_ERROR_LOAD, "kernel '%s': cannot read %s (build it with "
                                "simt.build_kernel or `simt build`)", name, path);
    simt_json j;
    const char *end = simt_json_value(text, &j, 0);
    free(text);
    int rc = (!end || j.type != 5)
        ? simt_fail(SIMT_ERROR_LOAD, "kernel '%s': %s is not valid JSON", name, path)
        : simt_manifest_fill(c, name, dir, path, &j, k, code_path, code_len);
    simt_json_free(&j);
    return rc;
}

SIMT_RT int simt_load_code(simt_context *c, simt_kernel *k, const char *code_path) {
    if (!c->is_cuda) {
        /* a private copy: dlopen caches by path, and the build may replace the file later */
        static int serial = 0;
        char tmp[256];
        int fd = -1;
        for (int attempt = 0; attempt < 100 && fd < 0; attempt++) {
            snprintf(tmp, sizeof tmp, "/tmp/simt-kernel-%ld-%d-%d.so", (long)getpid(),
                     __atomic_fetch_add(&serial, 1, __ATOMIC_RELAXED), attempt);
            fd = open(tmp, O_CREAT | O_EXCL | O_WRONLY, 0700);
        }
        size_t size = 0;
        char *bytes = simt_read_file(code_path, &size);
        if (fd < 0 || !bytes || write(fd, bytes, size) != (ssize_t)size) {
            if (fd >= 0) { close(fd); unlink(tmp); }
            free(bytes);
            return simt_fail(SIMT_ERROR_LOAD, "kernel '%s': cannot read %s", k->name, code_path);
        }
        free(bytes);
        close(fd);
        k->lib = dlopen(tmp, RTLD_NOW | RTLD_LOCAL);
        unlink(tmp);
        if (!k->lib) return simt_fail(SIMT_ERROR_LOAD, "kernel '%s': cannot load %s: %s", k->name, code_path, dlerror());
        const int *abi = (const int *)dlsym(k->lib, "simt_kernel_abi");
        *(void **)&k->run = dlsym(k->lib, k->entry);
        *(void **)&k->where = dlsym(k->lib, "simt_kernel_where");
        if (!abi || *abi != 1 || !k->run || !k->where)
            return simt_fail(SIMT_ERROR_LOAD, "kernel '%s': %s is not a simt cpu kernel of ABI 1", k->name, code_path);
        return 0;
    }
    size_t size = 0;
    char *image = simt_read_file(code_path, &size);
    if (!image) return simt_fail(SIMT_ERROR_LOAD, "kernel '%s': cannot read %s", k->name, code_path);
    int e = c->cu.cuCtxSetCurrent(c->cu_ctx);
    if (!e) e = c->cu.cuModuleLoadData(&k->module, image);
    free(image);
    if (e) return simt_fail(SIMT_ERROR_DRIVER, "kernel '%s': cuModuleLoadData(%s) failed with %s",
                            k->name, code_path, simt_cu_name(c, e));
    e = c->cu.cuModuleGetFunction(&k->function, k->module, k->entry);
    if (e) return simt_fail(SIMT_ERROR_DRIVER, "kernel '%s': cuModuleGetFunction(%s) failed with %s",
                            k->name, k->entry, simt_cu_name(c, e));
    return 0;
}

/* Load ``name`` from ``dir`` (build_kernel's out_dir); a name already loaded is replaced. */
SIMT_RT int simt_load_kernel(simt_context *c, const char *name, const char *dir, simt_kernel **out) {
    simt_kernel fresh;
    memset(&fresh, 0, sizeof fresh);
    fresh.ctx = c;
    char code[1400];
    int rc = simt_read_manifest(c, name, dir, &fresh, code, sizeof code);
    if (!rc) rc = simt_load_code(c, &fresh, code);
    if (rc) { simt_kernel_unload(&fresh); return rc; }
    pthread_mutex_lock(&c->lock);
    simt_kernel *k = NULL;
    for (int i = 0; i < c->nkernels; i++) if (!strcmp(c->kernels[i]->name, name)) k = c->kernels[i];
    if (k) {                                   /* hot reload: same handle, new code */
        if (c->is_cuda) { c->cu.cuCtxSetCurrent(c->cu_ctx); c->cu.cuCtxSynchronize(); }
        fresh.generation = k->generation + 1;
        simt_kernel old = *k;
        *k = fresh;
        simt_kernel_unload(&old);
    } else {
        k = (simt_kernel *)malloc(sizeof *k);
        simt_kernel **list = (simt_kernel **)realloc(c->kernels, (c->nkernels + 1) * sizeof *list);
        if (!k || !list) { pthread_mutex_unlock(&c->lock); free(k); simt_kernel_unload(&fresh);
                           return simt_fail(SIMT_ERROR_USAGE, "out of memory"); }
        *k = fresh;
        c->kernels = list;
        c->kernels[c->nkernels++] = k;
    }
    pthread_mutex_unlock(&c->lock);
    *out = k;
    return 0;
}

/* ---- launching ---------------------------------------------------------------------------- */
SIMT_RT int simt_check_args(const simt_kernel *k, const simt_arg *args, int nargs) {
    if (nargs != k->nparams) {
        char names[1024] = "";
        for (int i = 0; i < k->nparams; i++)
            snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", i ? ", " : "", k->params[i].name);
        return simt_fail(SIMT_ERROR_ARGUMENT, "kernel '%s' takes %d arguments (%s), got %d",
                         k->name, k->nparams, names, nargs);
    }
    static const char *const kinds[3] = {"a scalar", "an array", "a struct"};
    for (int i = 0; i < nargs; i++) {
        const simt_param_info *p = &k->params[i];
        const simt_arg *a = &args[i];
        const char *got = a->kind >= 0 && a->kind <= 2 ? kinds[a->kind] : "an argument of unknown kind";
        if (a->kind != p->kind && p->kind == SIMT_STRUCT)
            return simt_fail(SIMT_ERROR_ARGUMENT, "kernel '%s', parameter '%s' (argument %d): expected a "
                             "struct %s, got %s", k->name, p->name, i, p->element, got);
        if (a->kind != p->kind)
            return simt_fail(SIMT_ERROR_ARGUMENT, "kernel '%s', parameter '%s' (argument %d): expected %s of "
                             "%s, got %s", k->name, p->name, i, kinds[p->kind], simt_dtype_names[p->dtype], got);
        if (p->kind == SIMT_STRUCT) {
            if (a->type_name && strcmp(a->type_name, p->element))
                return simt_fail(SIMT_ERROR_ARGUMENT, "kernel '%s', parameter '%s' (argument %d): expected "
                                 "struct %s, got struct %s", k->name, p->name, i, p->element, a->type_name);
            if (a->nbytes != p->nbytes)
                return simt_fail(SIMT_ERROR_ARGUMENT, "kernel '%s', parameter '%s' (argument %d): expected "
                                 "struct %s of %lld bytes (the C layout in %s/%s.h), got %lld bytes", k->name,
                                 p->name, i, p->element, (long long)p->nbytes, k->dir, k->name,
                                 (long long)a->nbytes);
            if (!a->ptr)
                return simt_fail(SIMT_ERROR_ARGUMENT, "kernel '%s', parameter '%s' (argument %d): null "
                                 "struct pointer", k->name, p->name, i);
            for (int f = 0; f < p->nleaves; f++) {
                const simt_leaf *l = &p->leaves[f];
                if (l->kind != SIMT_ARRAY) continue;
                simt_array_view v;
                memcpy(&v, (const unsigned char *)a->ptr + l->offset, sizeof v);
                if (!v.data)
                    return simt_fail(SIMT_ERROR_ARGUMENT, "kernel '%s', parameter '%s' (argument %d): field "
                                     "'%s' holds a null array pointer", k->name, p->name, i, l->path);
                for (int d = 0; d < l->ndim; d++)
                    if (v.shape[d] < 0 || v.shape[d] > INT32_MAX)
                        return simt_fail(SIMT_ERROR_ARGUMENT, "kernel '%s', parameter '%s': field '%s': "
                                         "extent %lld of dimension %d is outside [0, 2^31)", k->name,
                                         p->name, l->path, (long long)v.shape[d], d);
            }
            continue;
        }
        if (a->dtype != p->dtype)
            return simt_fail(SIMT_ERROR_ARGUMENT, "kernel '%s', parameter '%s' (argument %d): expected dtype "
                             "%s, got %s", k->name, p->name, i, simt_dtype_names[p->dtype],
                             a->dtype >= 0 && a->dtype < SIMT_NDTYPES ? simt_dtype_names[a->dtype] : "?");
        if (p->kind == SIMT_SCALAR && a->ncomp != p->ncomp)
            return simt_fail(SIMT_ERROR_ARGUMENT, "kernel '%s', parameter '%s' (argument %d): expected a %s "
                             "(%d %s values), got %d", k->name, p->name, i, p->element, p->ncomp,
                             simt_dtype_names[p->dtype], a->ncomp);
        if (p->kind == SIMT_ARRAY) {
            if (a->ndim != p->ndim)
                return simt_fail(SIMT_ERROR_ARGUMENT, "kernel '%s', parameter '%s' (argument %d): expected a "
                                 "%d-d array, got %d-d", k->name, p->name, i, p->ndim, a->ndim);
            for (int d = 0; d < a->ndim; d++)
                if (a->shape[d] < 0 || a->shape[d] > INT32_MAX)
                    return simt_fail(SIMT_ERROR_ARGUMENT, "kernel '%s', parameter '%s': extent %lld of "
                                     "dimension %d is outside [0, 2^31)", k->name, p->name,
                                     (long long)a->shape[d], d);
            if (!a->ptr)
                return simt_fail(SIMT_ERROR_ARGUMENT, "kernel '%s', parameter '%s' (argument %d): null "
                                 "array pointer", k->name, p->name, i);
        }
    }
    return 0;
}

SIMT_RT int simt_cpu_error(const simt_kernel *k, const simt_cpu_launch *L, const int64_t *shapes) {
    const char *where = k->where((int)L->err[3]);
    const char *tab = strchr(where, '\t');
    char array[128] = "";
    if (tab) snprintf(array, sizeof array, "%.*s", (int)(tab - where), where);
    const char *loc = tab ? tab + 1 : "";
    long long cta = (long long)L->err[1], t = (long long)L->err[2];
    (void)shapes;
    switch (L->err[0]) {
    case 1: return simt_fail(SIMT_ERROR_KERNEL, "kernel '%s': index %lld out of bounds for array '%s' "
                             "(block %lld, thread %lld, %s)", k->name, (long long)L->err[4], array, cta, t, loc);
    case 2: return simt_fail(SIMT_ERROR_KERNEL, "kernel '%s': index %lld out of bounds for array '%s' "
                             "(extent %lld; block %lld, thread %lld, %s)", k->name, (long long)L->err[4],
                             array, (long long)L->err[5], cta, t, loc);
    case 3: return simt_fail(SIMT_ERROR_KERNEL, "kernel '%s': warp intrinsic with mask 0x%llx names lanes "
                             "0x%llx that did not arrive (block %lld, thread %lld, %s)", k->name,
                             (unsigned long long)L->err[4], (unsigned long long)L->err[5], cta, t, loc);
    case 4: return simt_fail(SIMT_ERROR_KERNEL, "kernel '%s': barrier divergence: %lld threads wait at the "
                             "barrier, %lld do not (block %lld, %s)", k->name, (long long)L->err[4],
                             (long long)L->err[5], cta, loc);
    case 5: return simt_fail(SIMT_ERROR_KERNEL, "kernel '%s': step limit of %lld basic blocks per thread "
                             "exceeded (block %lld, thread %lld)", k->name, (long long)L->max_steps, cta, t);
    default: return simt_fail(SIMT_ERROR_KERNEL, "kernel '%s': out of memory", k->name);
    }
}

/* How many parameters of the compiled kernel a struct argument becomes: one per scalar and,
   per array field, one (cpu) or its pointer and extents (cuda). */
SIMT_RT int simt_struct_params(const simt_param_info *p, int cuda) {
    int n = 0;
    for (int f = 0; f < p->nleaves; f++)
        n += p->leaves[f].kind == SIMT_ARRAY ? (cuda ? 1 + p->leaves[f].ndim : 1) : p->leaves[f].ncomp;
    return n;
}

/* The struct arguments' bytes, copied into one buffer (each at a 16-byte aligned offset,
   at[i] for argument i) with bools made 0 or 1: the kernel's scalar parameters read their
   fields from this copy. *buf stays NULL when there is no struct argument. */
SIMT_RT int simt_struct_copies(const simt_kernel *k, const simt_arg *args, int nargs, unsigned char **buf,
                               int64_t *at) {
    int64_t total = 0;
    *buf = NULL;
    for (int i = 0; i < nargs; i++)
        if (args[i].kind == SIMT_STRUCT) { at[i] = total; total += (args[i].nbytes + 15) / 16 * 16; }
    if (total == 0) return 0;
    *buf = (unsigned char *)malloc((size_t)total);
    if (!*buf) return simt_fail(SIMT_ERROR_USAGE, "kernel '%s': out of memory", k->name);
    for (int i = 0; i < nargs; i++) {
        if (args[i].kind != SIMT_STRUCT) continue;
        unsigned char *bytes = *buf + at[i];
        memcpy(bytes, args[i].ptr, (size_t)args[i].nbytes);
        const simt_param_info *p = &k->params[i];
        for (int f = 0; f < p->nleaves; f++)
            if (p->leaves[f].kind == SIMT_SCALAR && p->leaves[f].dtype == SIMT_BOOL)
                for (int c2 = 0; c2 < p->leaves[f].ncomp; c2++)
                    bytes[p->leaves[f].offset + c2] = bytes[p->leaves[f].offset + c2] != 0;
    }
    return 0;
}

/* Launch over ``dim`` (ndim extents, numpy order) in blocks of ``block_dim`` threads (0: the
   manifest's); arguments in parameter order. */
SIMT_RT int simt_launch_locked(simt_kernel *k, int ndim, const int64_t *dim, const simt_arg *args,
                               int nargs, int block_dim) {
    simt_context *c = k->ctx;
    int rc = simt_check_args(k, args, nargs);
    if (rc) return rc;
    if (ndim != k->dim_ndim) {
        rc = simt_fail(SIMT_ERROR_ARGUMENT, "kernel '%s' was built for a %d-d dim, launched with %d-d",
                       k->name, k->dim_ndim, ndim);
        return rc;
    }
    int bd = block_dim > 0 ? block_dim : k->block_dim;
    if (block_dim > 0 && k->grid_mapping)
        return simt_fail(SIMT_ERROR_ARGUMENT, "kernel '%s' was built for an n-d grid of blocks; its "
                         "block size is fixed at build time (give block_dim 0)", k->name);
    if (bd > 1024 || block_dim < 0) {
        rc = simt_fail(SIMT_ERROR_ARGUMENT, "kernel '%s': block_dim %d is outside [1, 1024]", k->name, block_dim);
        return rc;
    }
    int64_t total = 1, d4[4] = {1, 1, 1, 1};
    for (int i = 0; i < ndim; i++) {
        if (dim[i] < 0 || dim[i] > INT32_MAX) {
            rc = simt_fail(SIMT_ERROR_ARGUMENT, "kernel '%s': dim[%d] = %lld is outside [0, 2^31)",
                           k->name, i, (long long)dim[i]);
            return rc;
        }
        total *= dim[i];
        d4[i] = dim[i];
    }
    if (total == 0) return 0;
    int64_t block3[3] = {bd, 1, 1}, grid3[3] = {(total + bd - 1) / bd, 1, 1};
    if (k->grid_mapping) {                /* CUDA's x is the last dimension */
        for (int i = 0; i < ndim; i++) {
            block3[i] = k->block_nd[ndim - 1 - i];
            grid3[i] = (dim[ndim - 1 - i] + block3[i] - 1) / block3[i];
        }
    }
    if (grid3[0] > INT32_MAX || grid3[1] > 65535 || grid3[2] > 65535)
        return simt_fail(SIMT_ERROR_ARGUMENT, "kernel '%s': a grid of %lld x %lld x %lld blocks is over "
                         "CUDA's limits", k->name, (long long)grid3[0], (long long)grid3[1], (long long)grid3[2]);
    if (nargs > 256) return simt_fail(SIMT_ERROR_ARGUMENT, "kernel '%s': over 256 parameters", k->name);
    unsigned char *blobs = NULL;
    int64_t at[256];
    rc = simt_struct_copies(k, args, nargs, &blobs, at);
    if (rc) return rc;
    if (!c->is_cuda) {
        void *data[256];
        int64_t sizes[256], shapes[4 * 256];
        int m = 0;                         /* the compiled function's parameters */
        for (int i = 0; i < nargs; i++) {
            const simt_arg *a = &args[i];
            int count = a->kind == SIMT_ARRAY ? 1 : a->kind == SIMT_STRUCT ? simt_struct_params(&k->params[i], 0)
                                                                        : a->ncomp;
            if (m + count > 256) {
                free(blobs);
                return simt_fail(SIMT_ERROR_ARGUMENT, "kernel '%s': over 256 parameters", k->name);
            }
            if (a->kind == SIMT_STRUCT) {      /* one parameter per scalar and per array of its fields */
                const simt_param_info *p = &k->params[i];
                for (int f = 0; f < p->nleaves; f++) {
                    const simt_leaf *l = &p->leaves[f];
                    if (l->kind == SIMT_ARRAY) {
                        simt_array_view v;
                        memcpy(&v, blobs + at[i] + l->offset, sizeof v);
                        int64_t n = l->ncomp;
                        for (int d = 0; d < 4; d++) shapes[4 * m + d] = d < l->ndim ? v.shape[d] : 1;
                        for (int d = 0; d < l->ndim; d++) n *= v.shape[d];
                        sizes[m] = n;
                        data[m++] = v.data;
                        continue;
                    }
                    for (int c2 = 0; c2 < l->ncomp; c2++, m++) {
                        for (int d = 0; d < 4; d++) shapes[4 * m + d] = 1;
                        sizes[m] = 0;
                        data[m] = blobs + at[i] + l->offset + c2 * simt_dtype_sizes[l->dtype];
                    }
                }
                continue;
            }
            for (int c2 = 0; c2 < count; c2++, m++) {
                int64_t n = k->params[i].ncomp;
                for (int d = 0; d < 4; d++) shapes[4 * m + d] = d < a->ndim ? a->shape[d] : 1;
                for (int d = 0; d < a->ndim; d++) n *= a->shape[d];
                sizes[m] = a->kind == SIMT_ARRAY ? n : 0;
                data[m] = a->kind == SIMT_ARRAY ? a->ptr
                                                : (void *)(a->value + c2 * simt_dtype_sizes[a->dtype]);
            }
        }
        simt_cpu_launch L;
        memset(&L, 0, sizeof L);
        memcpy(L.block, block3, sizeof block3);
        memcpy(L.grid, grid3, sizeof grid3);
        memcpy(L.dim, d4, sizeof d4);
        L.max_steps = k->max_steps;
        L.data = data; L.sizes = sizes; L.shapes = shapes;
        if (k->run(&L) != 0) rc = simt_cpu_error(k, &L, shapes);
        free(blobs);
        return rc;
    }
    {
        /* the PTX ABI: per array a u64 pointer then int32 extents; per scalar its value; then
           four int32 dims (simt/gpu/ptx.py) */
        void *params[1200];
        int32_t ints[1200];
        unsigned long long ptrs[1200];
        int np = 0, ni = 0, npt = 0;
        int flat = 0;
        for (int i = 0; i < nargs; i++)
            flat += args[i].kind == SIMT_ARRAY ? 1 + args[i].ndim
                    : args[i].kind == SIMT_STRUCT ? simt_struct_params(&k->params[i], 1) : args[i].ncomp;
        if (flat > 1100) {
            free(blobs);
            return simt_fail(SIMT_ERROR_ARGUMENT, "kernel '%s': too many parameters", k->name);
        }
        for (int i = 0; i < nargs; i++) {
            const simt_arg *a = &args[i];
            if (a->kind == SIMT_STRUCT) {      /* each scalar and each array of its fields, in order */
                const simt_param_info *p = &k->params[i];
                for (int f = 0; f < p->nleaves; f++) {
                    const simt_leaf *l = &p->leaves[f];
                    if (l->kind == SIMT_ARRAY) {
                        simt_array_view v;
                        memcpy(&v, blobs + at[i] + l->offset, sizeof v);
                        ptrs[npt] = (unsigned long long)(uintptr_t)v.data;
                        params[np++] = &ptrs[npt++];
                        for (int d = 0; d < l->ndim; d++) { ints[ni] = (int32_t)v.shape[d]; params[np++] = &ints[ni++]; }
                        continue;
                    }
                    for (int c2 = 0; c2 < l->ncomp; c2++)
                        params[np++] = blobs + at[i] + l->offset + c2 * simt_dtype_sizes[l->dtype];
                }
            } else if (a->kind == SIMT_ARRAY) {
                ptrs[npt] = (unsigned long long)(uintptr_t)a->ptr;
                params[np++] = &ptrs[npt++];
                for (int d = 0; d < a->ndim; d++) { ints[ni] = (int32_t)a->shape[d]; params[np++] = &ints[ni++]; }
            } else {
                for (int c2 = 0; c2 < a->ncomp; c2++)
                    params[np++] = (void *)(a->value + c2 * simt_dtype_sizes[a->dtype]);
            }
        }
        for (int d = 0; d < 4; d++) { ints[ni] = (int32_t)d4[d]; params[np++] = &ints[ni++]; }
        int e = c->cu.cuCtxSetCurrent(c->cu_ctx);
        if (!e) e = c->cu.cuLaunchKernel(k->function, (unsigned)grid3[0], (unsigned)grid3[1], (unsigned)grid3[2],
                                      (unsigned)block3[0], (unsigned)block3[1], (unsigned)block3[2], 0, NULL,
                                      params, NULL);
        if (e) rc = simt_fail(SIMT_ERROR_DRIVER, "kernel '%s': cuLaunchKernel failed with %s", k->name,
                              simt_cu_name(c, e));
        free(blobs);                       /* cuLaunchKernel copied the parameter values */
    }
    return rc;
}

/* Launch over ``dim`` (ndim extents, numpy order) in blocks of ``block_dim`` threads (0: the
   manifest's); arguments in parameter order. */
SIMT_RT int simt_launch(simt_kernel *k, int ndim, const int64_t *dim, const simt_arg *args, int nargs,
                        int block_dim) {
    pthread_mutex_lock(&k->ctx->lock);
    int rc = simt_launch_locked(k, ndim, dim, args, nargs, block_dim);
    pthread_mutex_unlock(&k->ctx->lock);
    return rc;
}

/* argument helpers for C programs */
SIMT_RT simt_arg simt_array_arg(int dtype, void *ptr, int ndim, const int64_t *shape) {
    simt_arg a;
    memset(&a, 0, sizeof a);
    a.kind = SIMT_ARRAY; a.dtype = dtype; a.ptr = ptr; a.ndim = ndim; a.ncomp = 1;
    for (int d = 0; d < ndim && d < 4; d++) a.shape[d] = shape[d];
    return a;
}

SIMT_RT simt_arg simt_values_arg(int dtype, const void *values, int ncomp) {
    simt_arg a;
    memset(&a, 0, sizeof a);
    a.kind = SIMT_SCALAR; a.dtype = dtype;
    a.ncomp = ncomp < 1 ? 1 : ncomp * simt_dtype_sizes[dtype] > 128 ? 128 / simt_dtype_sizes[dtype] : ncomp;
    memcpy(a.value, values, (size_t)a.ncomp * simt_dtype_sizes[dtype]);
    return a;
}

SIMT_RT simt_arg simt_scalar_arg(int dtype, const void *value) { return simt_values_arg(dtype, value, 1); }

/* A struct argument: the bytes of the C struct <kernel>.h defines (read during simt_launch),
   their size and the struct's name (NULL: the size alone is checked). <kernel>.h has
   simt_arg_NAME(&value) for each struct. */
SIMT_RT simt_arg simt_struct_arg(const char *type_name, const void *value, size_t nbytes) {
    simt_arg a;
    memset(&a, 0, sizeof a);
    a.kind = SIMT_STRUCT; a.dtype = -1; a.ncomp = 1;
    a.ptr = (void *)value; a.nbytes = (int64_t)nbytes; a.type_name = type_name;
    return a;
}

#ifdef __cplusplus
}
#endif
#endif /* SIMT_RUNTIME_H */
