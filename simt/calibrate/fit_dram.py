"""What a DRAM access costs beside a stream's bytes (simt calibrate's fit; fit.py calls these):
atomic_lines.cu's random loads over 256 MB give the DRAM time of a 64-byte fetch alone in its
part of DRAM (dram_access_bytes), and micro.cu's scatter_read, a sweep that fetches one 64-byte
half of every line or of every other line, how far apart fetches may be and still share that
cost (dram_page_bytes): k lone fetches of one page in a request cost 64 + (access - 64) / k
bytes each (simt/sim/timing/dram.py dram_cost)."""
from __future__ import annotations

import numpy as np

CYC = "sm__cycles_elapsed.max"

DRAM_ACCESS_SOURCE = ("atomic_lines.cu ld_rand over 2^21 lines (256 MB; benchmarks/timing/atomic_lines.py): each lane "
                      "loads a line hashed over the table, one 64-byte fetch each: the cycles a fetch (16 steps less "
                      "4) x dram_bytes_per_cycle, a lone fetch's DRAM time in bytes of a stream's reads "
                      "(benchmarks/timing/dram_rows.cu: the same for a lane's chunks of 64 B to 4 KB)")
DRAM_PAGE_SOURCE = ("micro.cu scatter_read, one float a lane 128 and 256 bytes apart: the page size (256 B to 4 KB) "
                    "whose fetches a request, k of them alone in a page, cost 64 + (dram_access_bytes - 64) / k "
                    "bytes each, closest to the launches' cycles x dram_bytes_per_cycle a fetch")
DRAM_RMW_SOURCE = ("atomic_lines.cu st_rand over 2^21 lines (256 MB; benchmarks/timing/atomic_lines.py): each lane "
                   "stores word 0 of a line hashed over the table, and the L2 writes each partly written sector "
                   "back after reading it: the cycles between 4 and 16 steps x dram_bytes_per_cycle, less the "
                   "sectors read at dram_access_bytes each, over the sectors written x dram_write_cost: a lone "
                   "partly written sector's write-back in bytes of a stream's reads (its read-modify-write)")
PAGES = (256, 512, 1024, 2048, 4096)


def _fit_error():
    from .fit import FitError            # (fit imports this module)
    return FitError


def _steps_4_and_16(lines, bench: str):
    """The first and last launch of atomic_lines.cu's ``bench`` over 2^21 lines (4 and 16 steps)."""
    rows = lines[(lines.bench == bench) & (lines.value // 100 == 21)].sort_values("value")
    if len(rows) < 2:
        raise _fit_error()(f"atomic_lines: {bench} over 2^21 lines has fewer than two launches")
    return rows.iloc[0], rows.iloc[-1]


def dram_access_bytes(lines, dram_bpc: float) -> float:
    """The DRAM time of one lone 64-byte fetch, in bytes of a stream's reads: atomic_lines.cu's
    ld_rand over 2^21 lines, the cycles between its 4 and 16 steps over the DRAM bytes they read
    (in 64-byte fetches), times ``dram_bpc``; never less than the fetch's own 64 bytes."""
    a, z = _steps_4_and_16(lines, "ld_rand")
    fetches = (z["dram__bytes_read.sum"] - a["dram__bytes_read.sum"]) / 64.0
    return max(64.0, dram_bpc * float(z[CYC] - a[CYC]) / fetches)


def dram_rmw_access_bytes(lines, dram_bpc: float, access: float, write_cost: float) -> float:
    """The DRAM time of one lone write-back of a partly written sector, in bytes of a stream's
    reads, beside the read of the sector it needs first: atomic_lines.cu's st_rand over 2^21
    lines, the cycles between its 4 and 16 steps times ``dram_bpc``, less the sectors read at
    ``access`` each, over the sectors written times ``write_cost``; never less than ``access``."""
    a, z = _steps_4_and_16(lines, "st_rand")
    read = (z["dram__bytes_read.sum"] - a["dram__bytes_read.sum"]) / 32.0
    written = (z["dram__bytes_write.sum"] - a["dram__bytes_write.sum"]) / 32.0
    time = dram_bpc * float(z[CYC] - a[CYC]) - read * access
    return max(access, time / (written * write_cost))


def lone_cost(access: float, mates: float) -> float:
    """A 64-byte fetch's DRAM time (bytes) when ``mates`` lone fetches of one page share it."""
    return 64.0 + (access - 64.0) / max(1.0, mates)


def dram_page_bytes(micro, access: float, dram_bpc: float) -> int:
    """The page size that best gives micro.cu scatter_read's cost a fetch at strides of 32 and
    64 floats (one fetch every 128 and 256 bytes)."""
    sc = micro[(micro.bench == "scatter_read") & micro.value.isin([32, 64])]
    if len(sc) < 2:
        raise _fit_error()("micro: scatter_read lacks its strides of 32 and 64 floats")
    apart = 4.0 * sc.value.to_numpy(float)
    measured = dram_bpc * sc[CYC].to_numpy(float) / (sc["dram__bytes_read.sum"].to_numpy(float) / 64.0)

    def err(page):
        return float(np.sum(np.log(np.array([lone_cost(access, page / a) for a in apart]) / measured) ** 2))
    return min(PAGES, key=err)
