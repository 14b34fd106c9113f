"""Triton kernels of the PTX corpus (triton_*.ptx are their PTX for sm_80, written by
tools/gen_ptx_corpus.py) and of tests/test_ptx_frontends.py, which runs them against numpy."""
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)


@triton.jit
def softmax_kernel(out_ptr, in_ptr, in_stride, out_stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(in_ptr + row * in_stride + cols, mask=mask, other=-float("inf"))
    x = x - tl.max(x, axis=0)
    num = tl.exp(x)
    tl.store(out_ptr + row * out_stride + cols, num / tl.sum(num, axis=0), mask=mask)


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn,
                  stride_cm, stride_cn, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid_m, pid_n = tl.program_id(0), tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a = a_ptr + rm[:, None] * stride_am + rk[None, :] * stride_ak
    b = b_ptr + rk[:, None] * stride_bk + rn[None, :] * stride_bn
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        x = tl.load(a, mask=(rm[:, None] < M) & (rk[None, :] + k < K), other=0.0)
        y = tl.load(b, mask=(rk[:, None] + k < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(x, y)
        a += BK * stride_ak
        b += BK * stride_bk
    c = c_ptr + rm[:, None] * stride_cm + rn[None, :] * stride_cn
    tl.store(c, acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


@triton.jit
def matmul_pipelined(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm,
                     BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    """Row-major fp16 matmul, K a multiple of BK: with 16-byte divisibility Triton pipelines
    the loads through cp.async (num_stages=3)."""
    pid_m, pid_n = tl.program_id(0), tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a = a_ptr + rm[:, None] * stride_am + rk[None, :]
    b = b_ptr + rk[:, None] * stride_bk + rn[None, :]
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        acc += tl.dot(tl.load(a, mask=rm[:, None] < M, other=0.0),
                      tl.load(b, mask=rn[None, :] < N, other=0.0))
        a += BK
        b += BK * stride_bk
    c = c_ptr + rm[:, None] * stride_cm + rn[None, :]
    tl.store(c, acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


@triton.jit
def half_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    """f16 and bf16 loads, arithmetic and conversions."""
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)              # f16
    y = tl.load(y_ptr + offs, mask=mask)              # bf16
    z = x * x + x.to(tl.float32) * y.to(tl.float32)
    tl.store(out_ptr + offs, z.to(tl.float16), mask=mask)


@triton.jit
def layernorm_kernel(x_ptr, w_ptr, out_ptr, n_cols, eps, BLOCK: tl.constexpr):
    """fp16 rows normalised in f32: mean, variance, rsqrt, weights."""
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=0.0).to(tl.float32)
    mean = tl.sum(x, axis=0) / n_cols
    d = tl.where(mask, x - mean, 0.0)
    rstd = 1.0 / tl.sqrt(tl.sum(d * d, axis=0) / n_cols + eps)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0)
    tl.store(out_ptr + row * n_cols + cols, (d * rstd * w).to(tl.float16), mask=mask)


@triton.jit
def scan_argmax_kernel(x_ptr, csum_ptr, idx_ptr, hist_ptr, n, BLOCK: tl.constexpr):
    """A prefix sum, an argmax and atomic adds over one block of int32."""
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0)
    tl.store(csum_ptr + offs, tl.cumsum(x, axis=0), mask=mask)
    tl.store(idx_ptr, tl.argmax(tl.where(mask, x, -2**31), axis=0))
    tl.atomic_add(hist_ptr + (x & 7), 1, mask=mask)


@triton.jit
def half_fma_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    """fp16 add, then a multiply-subtract that Triton fuses into fma.rn.f16."""
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, (x + y) * x - y, mask=mask)


@triton.jit
def dot_tile(a_ptr, b_ptr, c_ptr, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
             ACC_F16: tl.constexpr):
    """One row-major tile product: fp32 inputs give tf32 mma (m16n8k8), fp16 inputs with
    ACC_F16 an f16-accumulating mma."""
    rm, rn, rk = tl.arange(0, BM), tl.arange(0, BN), tl.arange(0, BK)
    x = tl.load(a_ptr + rm[:, None] * BK + rk[None, :])
    y = tl.load(b_ptr + rk[:, None] * BN + rn[None, :])
    if ACC_F16:
        z = tl.dot(x, y, out_dtype=tl.float16)
    else:
        z = tl.dot(x, y)
    tl.store(c_ptr + rm[:, None] * BN + rn[None, :], z)


# name -> (signature, constexprs, options), as simt.from_triton takes them
KERNELS = {
    "add_kernel": ({"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32"},
                   {"BLOCK": 256}, {"num_warps": 4}),
    "softmax_kernel": ({"out_ptr": "*fp32", "in_ptr": "*fp32", "in_stride": "i32",
                        "out_stride": "i32", "n_cols": "i32"}, {"BLOCK": 128}, {"num_warps": 4}),
    "matmul_kernel": ({"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp32", "M": "i32", "N": "i32",
                       "K": "i32", "stride_am": "i32", "stride_ak": "i32", "stride_bk": "i32",
                       "stride_bn": "i32", "stride_cm": "i32", "stride_cn": "i32"},
                      {"BM": 32, "BN": 32, "BK": 32}, {"num_warps": 4, "num_stages": 2}),
    "matmul_pipelined": ({"a_ptr": "*bf16", "b_ptr": "*bf16", "c_ptr": "*fp32", "M": "i32", "N": "i32",
                          "K": "i32", "stride_am": "i32", "stride_bk": "i32", "stride_cm": "i32"},
                         {"BM": 32, "BN": 32, "BK": 32},
                         {"num_warps": 4, "num_stages": 3,
                          "divisibility": ("a_ptr", "b_ptr", "c_ptr", "stride_am", "stride_bk", "stride_cm")}),
    "half_kernel": ({"x_ptr": "*fp16", "y_ptr": "*bf16", "out_ptr": "*fp16", "n": "i32"},
                    {"BLOCK": 128}, {"num_warps": 4}),
    "layernorm_kernel": ({"x_ptr": "*fp16", "w_ptr": "*fp32", "out_ptr": "*fp16", "n_cols": "i32",
                          "eps": "fp32"}, {"BLOCK": 256}, {"num_warps": 4}),
    "scan_argmax_kernel": ({"x_ptr": "*i32", "csum_ptr": "*i32", "idx_ptr": "*i32", "hist_ptr": "*i32",
                            "n": "i32"}, {"BLOCK": 256}, {"num_warps": 4}),
    "half_fma_kernel": ({"x_ptr": "*fp16", "y_ptr": "*fp16", "out_ptr": "*fp16", "n": "i32"},
                     {"BLOCK": 512}, {"num_warps": 2, "divisibility": ("x_ptr", "y_ptr", "out_ptr")}),
    "dot_tile": ({"a_ptr": "*fp32", "b_ptr": "*fp32", "c_ptr": "*fp32"},
                 {"BM": 32, "BN": 32, "BK": 16, "ACC_F16": False}, {"num_warps": 4}),
}
