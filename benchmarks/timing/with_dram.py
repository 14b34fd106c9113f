"""Write a copy of an architecture file with the two DRAM constants simt calibrate fits from
atomic_lines.cu and micro.cu's scatter_read (simt.calibrate.fit_dram), fitted from a GPU's
measurements: for a file written before simt calibrate fitted them (data/h100/calibrated/h100.json).

    PYTHONPATH=. python3 benchmarks/timing/with_dram.py ARCH DATA OUT
    # e.g. the H100's file with its own constants (data/h100: atomic_lines.csv; its
    # calibrated/measured: micro.csv), then the held-out set on the H100:
    PYTHONPATH=. python3 benchmarks/timing/with_dram.py benchmarks/timing/data/h100/calibrated/h100.json \\
        benchmarks/timing/data/h100 /tmp/h100_dram.json
    PYTHONPATH=. python3 benchmarks/timing/validate_timing.py --arch /tmp/h100_dram.json --data benchmarks/timing/data/h100
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

from simt.calibrate import fit_dram, ncu_csv


def main() -> None:
    if len(sys.argv) != 4:
        raise SystemExit(__doc__)
    arch, data, out = Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3])
    a = json.loads(arch.read_text())
    t = a["timing"]
    access = fit_dram.dram_access_bytes(ncu_csv.load("atomic_lines", data), t["dram_bytes_per_cycle"])
    page = fit_dram.dram_page_bytes(ncu_csv.load("micro", data / "calibrated" / "measured"), access,
                                    t["dram_bytes_per_cycle"])
    t["dram_access_bytes"], t["dram_page_bytes"] = round(access, 1), page
    t["sources"]["dram_access_bytes"] = fit_dram.DRAM_ACCESS_SOURCE + f" ({data}/atomic_lines.csv)"
    t["sources"]["dram_page_bytes"] = fit_dram.DRAM_PAGE_SOURCE + f" ({data}/calibrated/measured/micro.csv)"
    out.write_text(json.dumps(a, indent=2) + "\n")
    print(f"wrote {out}: {arch} with dram_access_bytes {access:.1f}, dram_page_bytes {page}")


if __name__ == "__main__":
    main()
