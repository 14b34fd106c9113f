"""Read Nsight Compute's CSV (``--csv --print-units base``, one row per metric) into one row per
launch, joined with the manifest the measured program wrote (same launch order)."""
from __future__ import annotations

import csv
from pathlib import Path

import pandas as pd


def _number(text: str):
    t = text.replace(",", "").strip()
    try:
        return float(t)
    except ValueError:
        return t


def read_metrics(path: Path) -> pd.DataFrame:
    """One row per profiled launch (in launch order), one column per metric, plus the kernel name."""
    rows: dict[int, dict] = {}
    with open(path, newline="") as f:
        lines = [line for line in f if line.startswith('"')]
    for rec in csv.DictReader(lines):
        k = int(rec["ID"])
        row = rows.setdefault(k, {"kernel_name": rec["Kernel Name"], "grid_size": rec["Grid Size"],
                                  "block_size": rec["Block Size"]})
        row[rec["Metric Name"]] = _number(rec["Metric Value"])
    return pd.DataFrame([rows[k] for k in sorted(rows)])


def load(name: str, data: Path) -> pd.DataFrame:
    """``name``'s profiler rows (``data/name.csv``) joined with its manifest (``name_manifest.csv``)."""
    data = Path(data)
    metrics = read_metrics(data / f"{name}.csv")
    manifest = pd.read_csv(data / f"{name}_manifest.csv")
    if len(metrics) != len(manifest):
        raise ValueError(f"{name}: {len(metrics)} profiled launches but {len(manifest)} in the manifest")
    return pd.concat([manifest.reset_index(drop=True), metrics], axis=1)


def with_second_profile(df: pd.DataFrame, name: str, data: Path, columns) -> pd.DataFrame:
    """``df`` (``load`` of the first profile) with ``columns`` from a second profile of the same
    program (``data/name.csv``, the same launches in the same order; a metric this profiler
    lacked, or no second profile at all: NaN). ValueError where its launches differ."""
    df = df.copy()
    second = load(name, data) if (Path(data) / f"{name}.csv").exists() else None
    if second is not None and list(second.bench) != list(df.bench):
        raise ValueError(f"{name}.csv does not hold the same launches as the first profile")
    for c in columns:
        df[c] = second[c].to_numpy() if second is not None and c in second else float("nan")
    return df


def l2_hit_request_rate(df: pd.DataFrame, log2_lines: int = 16) -> float | None:
    """atomic_lines.cu's ld_rand over 2^``log2_lines`` lines (``load("atomic_lines", data)``;
    every lane reads word 0 of its own hashed line of a table the L2 holds): the one-sector L2
    requests per cycle, as the difference between its launches of the most and fewest steps
    (L2 sectors over cycles), so the launch's ramp and tail and the table's first reads from
    DRAM, the same in both, drop out. None where the table has fewer than two launches."""
    ld = df[(df.bench == "ld_rand") & (df.value // 100 == log2_lines)].sort_values("value")
    if len(ld) < 2:
        return None
    a, b = ld.iloc[0], ld.iloc[-1]
    return float((b["lts__t_sectors.sum"] - a["lts__t_sectors.sum"])
                 / (b["sm__cycles_elapsed.max"] - a["sm__cycles_elapsed.max"]))


def l2_request_rate(df: pd.DataFrame) -> tuple[float, float]:
    """l2_sharing.cu's gathers (``load("l2_sharing", data)``): the one-sector L2 read requests per cycle
    of the largest table read once from DRAM (every read after a sector's first hits), and
    that table's size in MB."""
    ga = df[df.bench == "gather"]
    fits = ga[ga["dram__bytes_read.sum"] < 1.05 * ga.mb * (1 << 20)]
    big = fits.loc[fits.mb.idxmax()]
    return float(big["lts__t_sectors_srcunit_tex_op_read.sum"] / big["sm__cycles_elapsed.max"]), float(big.mb)
