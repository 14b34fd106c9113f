"""Run NVIDIA's ptxas on emitted PTX: validation, and the resource report of ``ptxas -v``
(registers, shared memory, spills) that decides occupancy on a real GPU."""
from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
from pathlib import Path

from ..errors import DeviceError


def find_ptxas() -> str:
    path = shutil.which("ptxas")
    if path is None:
        raise DeviceError("ptxas was not found on PATH; it ships with the CUDA toolkit "
                          "(add <cuda>/bin to PATH) and is needed to assemble or measure PTX")
    return path


def assemble(ptx_text: str, arch: str = "sm_90", verbose: bool = False) -> str:
    """Run ptxas on the text; return its report (stderr + stdout); DeviceError if it refuses."""
    return run(ptx_text, arch, ["-v"] if verbose else [])[0]


def run(ptx_text: str, arch: str, flags: list[str]) -> tuple[str, bytes]:
    """ptxas with ``flags`` on the text: (its report, the cubin); DeviceError if it refuses."""
    ptxas = find_ptxas()
    with tempfile.TemporaryDirectory() as tmp:
        src, out = Path(tmp) / "kernel.ptx", Path(tmp) / "kernel.cubin"
        src.write_text(ptx_text)
        proc = subprocess.run([ptxas, *flags, f"-arch={arch}", str(src), "-o", str(out)],
                              capture_output=True, text=True)
        report = (proc.stderr + proc.stdout).strip()
        if proc.returncode != 0:
            raise DeviceError(f"ptxas -arch={arch} rejected the PTX:\n{report}")
        return report, out.read_bytes()


_FIELDS = {
    "registers": r"Used (\d+) registers",
    "barriers": r"used (\d+) barriers",
    "shared_bytes": r"(\d+) bytes smem",
    "stack_frame_bytes": r"(\d+) bytes stack frame",
    "spill_store_bytes": r"(\d+) bytes spill stores",
    "spill_load_bytes": r"(\d+) bytes spill loads",
    "constant_bytes": r"(\d+) bytes cmem\[0\]",
}


def resource_usage(ptx_text: str, arch: str = "sm_90") -> dict[str, int | str]:
    """``ptxas -v``'s numbers as a dict (missing fields are 0)."""
    return {"arch": arch, **parse_report(assemble(ptx_text, arch, verbose=True))}


def parse_report(report: str) -> dict[str, int]:
    """The numbers of a ``ptxas -v`` report (missing fields are 0)."""
    info = {}
    for key, pattern in _FIELDS.items():
        found = re.search(pattern, report)
        info[key] = int(found.group(1)) if found else 0
    return info
