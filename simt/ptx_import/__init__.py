"""Kernels imported from PTX (CUDA C through nvcc): a front end producing MIR.

``simt.from_ptx(text_or_path, name)`` and ``simt.from_cuda(source_or_path, name)`` return a
kernel that ``simt.launch`` runs on the precise engine (cpu:precise, cpu:trace).
"""
from .kernel import ImportedKernel, from_cuda, from_ptx
from .numba_front import from_numba
from .triton_front import from_triton

__all__ = ["ImportedKernel", "from_cuda", "from_numba", "from_ptx", "from_triton"]
