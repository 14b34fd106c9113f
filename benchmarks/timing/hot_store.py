"""Stores many warps make to one line, on the H200, from hot_store.cu's profile
(data/h200/hot_store.csv): per kernel, between n = 8 and n = 32 stores a warp, the SM cycles
per warp store over the whole GPU and the L2 write requests they made. Evidence for what the
model does with such stores (benchmarks/timing/README.md); nothing is fitted from it.

    python3 benchmarks/timing/hot_store.py
"""
import csv
import io
from pathlib import Path

CSV = Path(__file__).parent / "data" / "h200" / "hot_store.csv"


def rows():
    text = "".join(line for line in CSV.read_text().splitlines(True) if not line.startswith("=="))
    out = {}
    for r in csv.DictReader(io.StringIO(text)):
        out.setdefault(r["ID"], {"kernel": r["Kernel Name"].split("(")[0]})[r["Metric Name"]] = \
            float(r["Metric Value"].replace(",", ""))
    return [out[k] for k in sorted(out, key=int)]


def main() -> None:
    by_kernel = {}
    for r in rows():                         # launched in order n = 8 then n = 32
        by_kernel.setdefault(r["kernel"], []).append(r)
    print("kernel          warp stores   L2 write requests   cycles per warp store (GPU-wide)")
    for k, (a, b) in by_kernel.items():
        st = b["smsp__inst_executed_op_global_st.sum"] - a["smsp__inst_executed_op_global_st.sum"]
        req = b["lts__t_requests_srcunit_tex_op_write.sum"]
        cyc = b["sm__cycles_elapsed.max"] - a["sm__cycles_elapsed.max"]
        print(f"{k:14s} {b['smsp__inst_executed_op_global_st.sum']:12,.0f} {req:19,.0f}   {cyc / st:.4f}")


if __name__ == "__main__":
    main()
