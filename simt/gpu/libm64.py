"""Float64 transcendentals on the GPU: CUDA's own double-precision math library, as PTX.

PTX has no float64 sin, exp, log ...; CUDA C++ has (libdevice, accurate to 1-2 ulp for most
functions, up to 6 for the erf family: CUDA C++ Programming Guide, "Mathematical Functions",
double precision). simt asks the CUDA toolkit to compile one small ``__device__`` wrapper
per float64 op a kernel uses, as PTX functions (``simt_f64_sin`` ...), and puts them in the
kernel's module, which calls them. The wrappers follow the MIR's definitions where they
differ from C's: ``erfinv(-0) == +0`` and ``erfcinv(x) == erfinv(1 - x)`` (Warp's).

The compiler is NVRTC (``cuda.bindings.nvrtc``, whose library comes with the CUDA toolkit or
the ``nvidia-cuda-nvrtc`` wheel) or, failing that, ``nvcc`` on PATH. The PTX of each set of
ops is cached on disk (``$SIMT_CACHE_DIR/ptx_f64`` or ``~/.cache/simt/ptx_f64``), keyed by the
ops, the target and the compiler, so a kernel compiles its library once per machine.
Without either compiler a float64 transcendental on ``cuda`` is a DeviceError that says so.
"""
from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import tempfile
import threading
from functools import lru_cache
from pathlib import Path

from ..errors import DeviceError
from ..ir.mir import Op

# op -> (arguments, the C++ body's expression in a and b)
FUNCTIONS: dict[Op, tuple[int, str]] = {
    Op.SIN: (1, "sin(a)"), Op.COS: (1, "cos(a)"), Op.TAN: (1, "tan(a)"),
    Op.ASIN: (1, "asin(a)"), Op.ACOS: (1, "acos(a)"), Op.ATAN: (1, "atan(a)"),
    Op.ATAN2: (2, "atan2(a, b)"),
    Op.SINH: (1, "sinh(a)"), Op.COSH: (1, "cosh(a)"), Op.TANH: (1, "tanh(a)"),
    Op.EXP: (1, "exp(a)"), Op.EXP2: (1, "exp2(a)"),
    Op.LOG: (1, "log(a)"), Op.LOG2: (1, "log2(a)"), Op.LOG10: (1, "log10(a)"),
    Op.POW: (2, "pow(a, b)"), Op.CBRT: (1, "cbrt(a)"),
    Op.ERF: (1, "erf(a)"), Op.ERFC: (1, "erfc(a)"),
    Op.ERFINV: (1, "a == 0.0 ? 0.0 : erfinv(a)"),
    Op.ERFCINV: (1, "(1.0 - a) == 0.0 ? 0.0 : erfinv(1.0 - a)"),
}


def name(op: Op) -> str:
    return f"simt_f64_{op.name.lower()}"


def call(em, op: Op, d: str, args: list[str]) -> None:
    """Emit a call of ``op``'s float64 function (its PTX joins the module: ``em.libm``)."""
    em.libm.add(op)
    lines = ["{", "\t.param .b64 simt_ret;"]
    for k, a in enumerate(args):
        lines += [f"\t.param .b64 simt_arg{k};", f"\tst.param.f64 [simt_arg{k}], {a};"]
    params = ", ".join(f"simt_arg{k}" for k in range(len(args)))
    lines += [f"\tcall.uni (simt_ret), {name(op)}, ({params});",
              f"\tld.param.f64 {d}, [simt_ret];", "}"]
    em.body.extend(f"\t{line}" for line in lines)


def source(ops) -> str:
    """The CUDA C++ of the wrappers for ``ops``."""
    out = []
    for op in sorted(ops, key=lambda o: o.value):
        n, expr = FUNCTIONS[op]
        params = "double a" if n == 1 else "double a, double b"
        out.append(f'extern "C" __device__ __noinline__ double {name(op)}({params}) '
                   f'{{ return {expr}; }}')
    return "\n".join(out) + "\n"


def library(ops, arch: str) -> str:
    """PTX for ``ops``' functions without the module header (the module's own ``.version``
    and ``.target`` stand: the functions are plain double-precision PTX)."""
    return _library(frozenset(ops), arch)


@lru_cache(maxsize=None)
def _library(ops: frozenset, arch: str) -> str:
    code = source(ops)
    compiler = _compiler()
    key = hashlib.sha256(f"{compiler[0]}\n{arch}\n{code}".encode()).hexdigest()[:24]
    cached = _cache_dir() / f"{key}.ptx" if _cache_dir() else None
    if cached is not None and cached.is_file():
        text = cached.read_text()
    else:
        text = compiler[1](code, arch)
        if cached is not None:
            _write_atomically(cached, text)
    return _body(text)


def _body(text: str) -> str:
    """The functions and their tables: the header lines and comments dropped."""
    keep = [line for line in text.splitlines()
            if not re.match(r"\s*(\.version|\.target|\.address_size|//)", line)]
    return "\n".join(keep).strip() + "\n"


# ---- compilers ------------------------------------------------------------------------------

_lock = threading.Lock()


@lru_cache(maxsize=None)
def _compiler():
    """(identity, compile function) of the first compiler found: NVRTC, then nvcc."""
    why = []
    try:
        major, minor = _nvrtc_version()
        return f"nvrtc {major}.{minor}", _nvrtc
    except Exception as e:                     # no bindings, or no libnvrtc to load
        why.append(f"NVRTC: {str(e).splitlines()[0] if str(e) else type(e).__name__}")
    nvcc = shutil.which("nvcc")
    if nvcc is not None:
        version = subprocess.run([nvcc, "--version"], capture_output=True, text=True).stdout
        return f"nvcc {version.strip().splitlines()[-1] if version else '?'}", _nvcc
    why.append("nvcc: not on PATH")

    def unavailable(code, arch):
        raise DeviceError("float64 transcendentals (sin, exp, pow ... on float64) on 'cuda' "
                          "are compiled from CUDA's math library, which needs NVRTC (pip "
                          "install nvidia-cuda-nvrtc-cu12, or a CUDA toolkit) or nvcc on "
                          f"PATH; neither was found ({'; '.join(why)})")
    return "none", unavailable


def _nvrtc_version() -> tuple[int, int]:
    from cuda.bindings import nvrtc
    err, major, minor = nvrtc.nvrtcVersion()
    _nvrtc_check(nvrtc, err, "nvrtcVersion")
    return major, minor


def _nvrtc(code: str, arch: str) -> str:
    from cuda.bindings import nvrtc
    err, prog = nvrtc.nvrtcCreateProgram(code.encode(), b"simt_f64.cu", 0, [], [])
    _nvrtc_check(nvrtc, err, "nvrtcCreateProgram")
    try:
        opts = [f"--gpu-architecture=compute_{arch.removeprefix('sm_')}".encode(),
                b"--relocatable-device-code=true", b"--std=c++17"]
        (err,) = nvrtc.nvrtcCompileProgram(prog, len(opts), opts)
        if err != nvrtc.nvrtcResult.NVRTC_SUCCESS:
            _, size = nvrtc.nvrtcGetProgramLogSize(prog)
            log = b" " * size
            nvrtc.nvrtcGetProgramLog(prog, log)
            raise DeviceError(f"NVRTC could not compile simt's float64 math functions: "
                              f"{log.decode(errors='replace').strip()}")
        err, size = nvrtc.nvrtcGetPTXSize(prog)
        _nvrtc_check(nvrtc, err, "nvrtcGetPTXSize")
        ptx = b" " * size
        (err,) = nvrtc.nvrtcGetPTX(prog, ptx)
        _nvrtc_check(nvrtc, err, "nvrtcGetPTX")
        return ptx.rstrip(b"\x00 ").decode()
    finally:
        nvrtc.nvrtcDestroyProgram(prog)


def _nvrtc_check(nvrtc, err, what: str) -> None:
    if err != nvrtc.nvrtcResult.NVRTC_SUCCESS:
        raise DeviceError(f"NVRTC failed in {what}: {err}")


def _nvcc(code: str, arch: str) -> str:
    with tempfile.TemporaryDirectory() as tmp:
        src, out = Path(tmp) / "simt_f64.cu", Path(tmp) / "simt_f64.ptx"
        src.write_text(code)
        proc = subprocess.run([shutil.which("nvcc") or "nvcc", f"-arch={arch}", "-rdc=true",
                               "-ptx", str(src), "-o", str(out)], capture_output=True, text=True)
        if proc.returncode != 0:
            raise DeviceError("nvcc could not compile simt's float64 math functions:\n"
                              + (proc.stderr + proc.stdout).strip())
        return out.read_text()


# ---- the disk cache -------------------------------------------------------------------------

def _cache_dir() -> Path | None:
    root = os.environ.get("SIMT_CACHE_DIR")
    path = (Path(root) if root else Path.home() / ".cache" / "simt") / "ptx_f64"
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None                            # no cache: compile each process
    return path


def _write_atomically(path: Path, text: str) -> None:
    try:
        with _lock, tempfile.NamedTemporaryFile("w", dir=path.parent, delete=False,
                                                suffix=".tmp") as f:
            f.write(text)
        os.replace(f.name, path)
    except OSError:
        pass                                   # a read-only cache: the next process compiles
