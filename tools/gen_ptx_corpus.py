"""Write the Numba-CUDA and Triton part of the PTX corpus (tests/ptx_corpus/numba/*.ptx and
tests/ptx_corpus/triton/*.ptx, with triton/meta.json) from the kernels in
tests/ptx_corpus/numba_kernels.py and triton_kernels.py, for sm_80 and sm_90, and
cuda_halves.ptx and cuda_wmma.ptx from their .cu files (nvcc -ptx -O3 -lineinfo, sm_80).

    PYTHONPATH=. python3 tools/gen_ptx_corpus.py

Needs numba-cuda and Triton (no GPU). The committed files let the census
(tests/test_ptx_frontends.py::test_census_of_compiler_corpus) and docs/ptx_coverage.md see
what these compilers emit without them.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "ptx_corpus"
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(CORPUS))
ARCHS = ("sm_80", "sm_90")


def numba_corpus() -> None:
    from numba import cuda

    import numba_kernels as nk
    from simt.ptx_import.numba_front import _cc
    out = CORPUS / "numba"
    out.mkdir(exist_ok=True)
    for arch in ARCHS:
        for name, sig in nk.SIGNATURES.items():
            ptx, _ = cuda.compile_ptx(getattr(nk, name), sig, cc=_cc(arch), lineinfo=True)
            (out / f"{name}_{arch}.ptx").write_text(_relative_files(ptx))


def triton_corpus() -> None:
    import triton_kernels as tk
    from simt import from_triton
    out = CORPUS / "triton"
    out.mkdir(exist_ok=True)
    meta = {}
    for arch in ARCHS:
        for name, (sig, constexprs, options) in tk.KERNELS.items():
            k = from_triton(getattr(tk, name), sig, constexprs, arch=arch, **options)
            path = out / f"{name}_{arch}.ptx"
            path.write_text(_relative_files(k.ptx_text))
            meta[path.name] = {"shared": k.dynamic_shared_bytes}
    (out / "meta.json").write_text(json.dumps(meta, indent=1, sort_keys=True) + "\n")


def cuda_corpus() -> None:
    import subprocess
    for name in ("cuda_halves", "cuda_wmma"):
        src, out = CORPUS / f"{name}.cu", CORPUS / f"{name}.ptx"
        subprocess.run(["nvcc", "-ptx", "-O3", "-arch=sm_80", "-lineinfo", str(src), "-o", str(out)], check=True)
        out.write_text(_relative_files(out.read_text()).replace(f'"../{name}.cu"', f'"{name}.cu"'))


def _relative_files(ptx: str) -> str:
    """.file paths relative to the corpus folder's files (the machine's paths left out)."""
    import re

    def local(m):
        name = m.group(2)
        return f'{m.group(1)}{"../" if (CORPUS / name).exists() else ""}{name}"'
    return re.sub(r'(\.file\s+\d+\s+")[^"]*/([^/"]+)"', local, ptx)


if __name__ == "__main__":
    numba_corpus()
    triton_corpus()
    cuda_corpus()
    print(f"wrote {CORPUS / 'numba'}, {CORPUS / 'triton'}, cuda_halves.ptx and cuda_wmma.ptx")
