"""The C/C++ runtime shipped with simt: header-only ``include/simt/runtime.hpp`` (C++) and
``include/simt/runtime.h`` (C). ``python -m simt config --cflags --libs`` prints the flags."""
from __future__ import annotations

from pathlib import Path

LIBS = ["-ldl", "-lpthread"]       # libcuda is opened with dlopen at run time


def include_dir() -> Path:
    return Path(__file__).with_name("include")


def cflags() -> list[str]:
    return [f"-I{include_dir()}"]


def libs() -> list[str]:
    return list(LIBS)
