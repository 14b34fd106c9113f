"""Kernels compiled ahead of time for the C/C++ runtime (simt/runtime): build.py."""
from .build import build_kernel

__all__ = ["build_kernel"]
