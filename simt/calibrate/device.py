"""What the CUDA driver reports about a GPU, and the architecture facts simt takes from it.

``query`` reads the device through cuda-python (cuDeviceGetAttribute and friends) and returns a
plain dict, saved as ``device.json`` beside the measurements; ``machine_section`` turns those
facts into the structural keys of an architecture file (SM count, limits, L2 size...), each
with its source. A handful of facts no driver attribute gives (the register allocation unit,
the carveouts, the L1/shared array) come from the CUDA C Programming Guide and say so.
"""
from __future__ import annotations

import shutil
import subprocess

from ..arch import load_arch
from ..errors import SimtError

# simt's PTX targets sm_80 or sm_90 (simt/gpu/ptx.py); the op probes run that PTX
MIN_COMPUTE_CAPABILITY = (8, 0)

# driver attribute -> device.json key
ATTRIBUTES = {
    "COMPUTE_CAPABILITY_MAJOR": "cc_major", "COMPUTE_CAPABILITY_MINOR": "cc_minor",
    "MULTIPROCESSOR_COUNT": "sm_count", "CLOCK_RATE": "clock_khz",
    "MEMORY_CLOCK_RATE": "memory_clock_khz", "GLOBAL_MEMORY_BUS_WIDTH": "memory_bus_bits",
    "WARP_SIZE": "warp_size", "MAX_THREADS_PER_BLOCK": "max_threads_per_block",
    "MAX_THREADS_PER_MULTIPROCESSOR": "max_threads_per_sm",
    "MAX_BLOCKS_PER_MULTIPROCESSOR": "max_blocks_per_sm",
    "MAX_REGISTERS_PER_MULTIPROCESSOR": "registers_per_sm", "MAX_REGISTERS_PER_BLOCK": "registers_per_block",
    "MAX_SHARED_MEMORY_PER_MULTIPROCESSOR": "shared_per_sm",
    "MAX_SHARED_MEMORY_PER_BLOCK": "shared_per_block",
    "MAX_SHARED_MEMORY_PER_BLOCK_OPTIN": "shared_per_block_optin",
    "RESERVED_SHARED_MEMORY_PER_BLOCK": "reserved_shared_per_block",
    "L2_CACHE_SIZE": "l2_bytes",
    "MAX_BLOCK_DIM_X": "max_block_dim_x", "MAX_BLOCK_DIM_Y": "max_block_dim_y",
    "MAX_BLOCK_DIM_Z": "max_block_dim_z", "MAX_GRID_DIM_X": "max_grid_dim_x",
    "MAX_GRID_DIM_Y": "max_grid_dim_y", "MAX_GRID_DIM_Z": "max_grid_dim_z",
}
# what the CUDA C Programming Guide gives every compute capability from 8.0 on, for facts
# recorded before the driver was asked for them (data/h200/device.json)
GUIDE_BLOCK_DIMS = (1024, 1024, 64)
GUIDE_GRID_DIMS = (2147483647, 65535, 65535)

# The unified L1/shared array per SM (KB), CUDA C Programming Guide, "Compute Capabilities".
# 9.0 keeps the wording sm_90.json has always had.
L1_SHARED_KB = {
    (8, 0): 192, (8, 6): 128, (8, 7): 192, (8, 9): 128, (9, 0): 256,
    (10, 0): 256, (10, 3): 256, (12, 0): 128, (12, 1): 128,
}
L1_SOURCE_SM90 = "REFERENCE.md: 256 KB of L1/shared per SM, less the shared-memory carveout"
# the shared-memory capacities (KB) a kernel can ask for (cudaFuncAttributePreferredSharedMemoryCarveout)
CARVEOUTS_KB = (0, 8, 16, 32, 64, 100, 132, 164, 196, 228)


class DeviceQueryError(SimtError):
    """The GPU cannot be queried or calibrated."""


def parse_device(device: str) -> int:
    """The ordinal of ``cuda`` or ``cuda:N``."""
    if device == "cuda":
        return 0
    head, _, tail = device.partition(":")
    if head != "cuda" or not tail.isdigit():
        raise DeviceQueryError(f"--device must be cuda or cuda:N (a GPU), got {device!r}")
    return int(tail)


def query(ordinal: int) -> dict:
    """The facts the driver reports about GPU ``ordinal``; DeviceQueryError when there is none."""
    from ..gpu import runtime
    reason = runtime.unavailable_reason(ordinal)
    if reason:
        raise DeviceQueryError(f"no GPU to measure: {reason}")
    drv = runtime.driver()
    dev = runtime.check(drv.cuDeviceGet(ordinal), "cuDeviceGet")
    facts: dict = {"ordinal": ordinal}
    name = runtime.check(drv.cuDeviceGetName(256, dev), "cuDeviceGetName")
    facts["name"] = (name.decode() if isinstance(name, bytes) else str(name)).split("\x00")[0].strip()
    for attr, key in ATTRIBUTES.items():
        enum = getattr(drv.CUdevice_attribute, f"CU_DEVICE_ATTRIBUTE_{attr}")
        facts[key] = int(runtime.check(drv.cuDeviceGetAttribute(enum, dev), f"cuDeviceGetAttribute({attr})"))
    facts["memory_bytes"] = int(runtime.check(drv.cuDeviceTotalMem(dev), "cuDeviceTotalMem"))
    facts["cuda_driver_version"] = int(runtime.check(drv.cuDriverGetVersion(), "cuDriverGetVersion"))
    facts["driver"] = _nvidia_smi_driver(ordinal)
    facts["queried_with"] = "cuda-python: cuDeviceGetName, cuDeviceGetAttribute, cuDeviceTotalMem, cuDriverGetVersion"
    return facts


def _nvidia_smi_driver(ordinal: int) -> str:
    """The display driver's version (580.159.04), or '' without nvidia-smi."""
    if not shutil.which("nvidia-smi"):
        return ""
    try:
        out = subprocess.run(["nvidia-smi", "-i", str(ordinal), "--query-gpu=driver_version",
                              "--format=csv,noheader"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return ""
    return out.stdout.strip().splitlines()[0] if out.returncode == 0 and out.stdout.strip() else ""


def compute_capability(facts: dict) -> tuple[int, int]:
    return int(facts["cc_major"]), int(facts["cc_minor"])


def check_supported(facts: dict) -> None:
    cc = compute_capability(facts)
    if cc < MIN_COMPUTE_CAPABILITY:
        raise DeviceQueryError(
            f"{facts['name']} has compute capability {cc[0]}.{cc[1]}; simt calibrate needs "
            f"{MIN_COMPUTE_CAPABILITY[0]}.{MIN_COMPUTE_CAPABILITY[1]} or newer (simt's PTX targets sm_80 and sm_90)")


def ptx_arch(facts: dict) -> str:
    """The PTX target simt's own kernels (the op probes) use on this GPU: sm_90 from Hopper on,
    sm_80 before (the driver compiles it for sm_86, sm_89...)."""
    return "sm_90" if compute_capability(facts) >= (9, 0) else "sm_80"


def nvcc_arch(facts: dict) -> str:
    major, minor = compute_capability(facts)
    return f"sm_{major}{minor}"


def l1_bytes(facts: dict) -> tuple[int, str]:
    """The L1/shared array per SM and where the figure comes from (no driver attribute gives it)."""
    cc = compute_capability(facts)
    if cc == (9, 0):
        return 256 * 1024, L1_SOURCE_SM90
    if cc in L1_SHARED_KB:
        kb = L1_SHARED_KB[cc]
        return kb * 1024, (f"CUDA C Programming Guide, compute capability {cc[0]}.{cc[1]}: {kb} KB of "
                           f"L1/shared per SM, less the shared-memory carveout")
    return int(facts["shared_per_sm"]), (
        f"compute capability {cc[0]}.{cc[1]} is not in simt's table of L1 sizes: the driver's shared "
        f"memory per SM (cuDeviceGetAttribute MAX_SHARED_MEMORY_PER_MULTIPROCESSOR), a lower bound")


def dram_peak(facts: dict) -> tuple[float, str]:
    """The DRAM's peak bandwidth (bytes per second) and where the figure comes from: two
    transfers per memory clock over the whole bus, as the driver reports clock and width."""
    clock_hz = float(facts["memory_clock_khz"]) * 1e3
    peak = 2.0 * clock_hz * int(facts["memory_bus_bits"]) / 8
    return peak, ("driver: 2 x memory clock x bus width (cuDeviceGetAttribute MEMORY_CLOCK_RATE, "
                  f"GLOBAL_MEMORY_BUS_WIDTH: {clock_hz / 1e6:.0f} MHz, {int(facts['memory_bus_bits'])} bits)")


def machine_section(facts: dict) -> tuple[dict, dict]:
    """The structural keys of an architecture file (everything but ``timing``) and their sources."""
    drv = "cuDeviceGetAttribute"
    major, minor = compute_capability(facts)
    per_sm_kb = facts["shared_per_sm"] // 1024
    d = {
        "name": f"sm_{major}{minor}",
        "gpu": facts["name"],
        "sm_count": facts["sm_count"],
        "schedulers_per_sm": 4,
        "clock_mhz": round(facts["clock_khz"] / 1000),
        "max_threads_per_block": facts["max_threads_per_block"],
        "max_warps_per_sm": facts["max_threads_per_sm"] // facts["warp_size"],
        "max_blocks_per_sm": facts["max_blocks_per_sm"],
        "registers_per_sm": facts["registers_per_sm"],
        "max_registers_per_thread": 255,
        "register_allocation_unit": 256,
        "shared_per_sm": facts["shared_per_sm"],
        "static_shared_per_block": facts["shared_per_block"],
        "max_shared_per_block_optin": facts["shared_per_block_optin"],
        "reserved_shared_per_block": facts["reserved_shared_per_block"],
        "shared_allocation_unit": 128,
        "shared_carveouts_kb": [kb for kb in CARVEOUTS_KB if kb <= per_sm_kb],
        "l2_bytes": facts["l2_bytes"],
        "ptx_target": ptx_arch(facts),
        "max_block_dims": _dims(facts, "max_block_dim", GUIDE_BLOCK_DIMS),
        "max_grid_dims": _dims(facts, "max_grid_dim", GUIDE_GRID_DIMS),
        "line_bytes": 128,
        "sector_bytes": 32,
        "shared_banks": 32,
        "shared_bank_bytes": 4,
    }
    if (major, minor) == (9, 0):
        # the carveout the driver configures, fitted on the H200 (Arch.driver_carveout): a file
        # for another GPU keeps the occupancy calculator's rule
        d["driver_carveout"] = dict(load_arch("sm_90").data["driver_carveout"])
    guide = "CUDA C Programming Guide and occupancy calculator, compute capability 8.0 and later"
    sources = {
        "name": "the device's compute capability (cuDeviceGetAttribute COMPUTE_CAPABILITY_MAJOR/MINOR)",
        "gpu": "cuDeviceGetName",
        "sm_count": f"{drv} MULTIPROCESSOR_COUNT",
        "schedulers_per_sm": f"{guide}: 4 warp schedulers per SM",
        "clock_mhz": f"{drv} CLOCK_RATE (the boost clock; timing.clock_mhz is the measured one)",
        "max_threads_per_block": f"{drv} MAX_THREADS_PER_BLOCK",
        "max_warps_per_sm": f"{drv} MAX_THREADS_PER_MULTIPROCESSOR / WARP_SIZE",
        "max_blocks_per_sm": f"{drv} MAX_BLOCKS_PER_MULTIPROCESSOR",
        "registers_per_sm": f"{drv} MAX_REGISTERS_PER_MULTIPROCESSOR",
        "max_registers_per_thread": f"{guide}: 255 registers per thread",
        "register_allocation_unit": f"{guide}: registers are allocated 256 per warp at a time",
        "shared_per_sm": f"{drv} MAX_SHARED_MEMORY_PER_MULTIPROCESSOR",
        "static_shared_per_block": f"{drv} MAX_SHARED_MEMORY_PER_BLOCK",
        "max_shared_per_block_optin": f"{drv} MAX_SHARED_MEMORY_PER_BLOCK_OPTIN",
        "reserved_shared_per_block": f"{drv} RESERVED_SHARED_MEMORY_PER_BLOCK",
        "shared_allocation_unit": f"{guide}: shared memory is allocated 128 bytes at a time",
        "shared_carveouts_kb": f"{guide}: the carveouts up to the device's MAX_SHARED_MEMORY_PER_MULTIPROCESSOR",
        "l2_bytes": f"{drv} L2_CACHE_SIZE",
        "ptx_target": "the PTX target simt's kernels are assembled for: sm_90 from compute capability 9.0 on, else sm_80",
        "max_block_dims": (f"{drv} MAX_BLOCK_DIM_X/Y/Z" if "max_block_dim_x" in facts
                           else f"{guide}: maximum block extents"),
        "max_grid_dims": (f"{drv} MAX_GRID_DIM_X/Y/Z" if "max_grid_dim_x" in facts
                          else f"{guide}: maximum grid extents"),
        "line_bytes": f"{guide}: 128-byte cache lines",
        "sector_bytes": f"{guide}: 32-byte sectors",
        "shared_banks": f"{guide}: shared memory has 32 banks",
        "shared_bank_bytes": f"{guide}: successive 32-bit words go to successive banks",
    }
    if "driver_carveout" in d:
        sources["driver_carveout"] = "the H200's, fitted by benchmarks/timing/carveout_fit.py (compute capability 9.0)"
    return d, sources


def _dims(facts: dict, prefix: str, guide: tuple) -> list:
    if f"{prefix}_x" not in facts:
        return list(guide)
    return [int(facts[f"{prefix}_{axis}"]) for axis in "xyz"]
