"""Conversion throughput on the H200 from conv_tput.cu's profile (data/h200/conv_tput.csv):
per kernel, the slope between n = 256 and n = 1024 of SM cycles over the warp instructions a
scheduler issued to each pipe. The op table puts a float-to-int conversion on the XU pipe from
it (simt/calibrate/fit.py: one F2I, at the interval of the pipe MUFU uses, 7.82 against the
8.23 measured here); int-to-float keeps the ALU pipe, whose interval is about the FMA pipe's.

    python3 benchmarks/timing/conv_tput.py
"""
import csv
import io
from pathlib import Path

CSV = Path(__file__).parent / "data" / "h200" / "conv_tput.csv"
SMS, SCHEDULERS = 132, 4


def rows():
    text = "".join(line for line in CSV.read_text().splitlines(True) if not line.startswith("=="))
    out = {}
    for r in csv.DictReader(io.StringIO(text)):
        if r["Metric Value"] == "n/a":
            continue
        out.setdefault(r["ID"], {"kernel": r["Kernel Name"].split("(")[0]})[r["Metric Name"]] = \
            float(r["Metric Value"].replace(",", ""))
    return [out[k] for k in sorted(out, key=int)]


def main() -> None:
    launches = rows()
    by_kernel = {}
    for r in launches:                       # launched in order n = 256 then n = 1024
        by_kernel.setdefault(r["kernel"], []).append(r)
    print("kernel   cycles/step-slope   per scheduler: xu inst  fma inst  alu inst   cycles per xu inst  per fma inst")
    for k, (a, b) in by_kernel.items():
        cyc = b["sm__cycles_elapsed.avg"] - a["sm__cycles_elapsed.avg"]
        per = {p: (b[f"sm__inst_executed_pipe_{p}.sum"] - a[f"sm__inst_executed_pipe_{p}.sum"]) / (SMS * SCHEDULERS)
               for p in ("xu", "fma", "alu")}
        xu = f"{cyc / per['xu']:.2f}" if per["xu"] else "-"
        print(f"{k:8s} {cyc:18,.0f}   {per['xu']:21,.0f} {per['fma']:9,.0f} {per['alu']:9,.0f}   {xu:>18s}  {cyc / per['fma']:.2f}")


if __name__ == "__main__":
    main()
