"""Architecture descriptions (one JSON data file per architecture) and occupancy.

The architectures simt models are the JSON files in this folder (``sm_90.json`` ...); a
path to another such file (``arch="my_gpu.json"``) is loaded and checked the same way.
Every key the code reads is listed in REQUIRED below, and ``load_arch`` fails naming the
file and the first missing key, so no code needs a default standing in for a fact.
"""
from __future__ import annotations

import hashlib
import json
import tempfile
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from ..errors import SimtError

ARCH_DIR = Path(__file__).parent

# every key the code reads, by section ("" the top level; "timing.latency" a nested dict)
REQUIRED = {
    "": ("name", "gpu", "ptx_target", "sm_count", "schedulers_per_sm", "max_threads_per_block",
         "max_block_dims", "max_grid_dims", "max_warps_per_sm", "max_blocks_per_sm",
         "registers_per_sm", "max_registers_per_thread", "register_allocation_unit",
         "shared_per_sm", "static_shared_per_block", "reserved_shared_per_block",
         "shared_allocation_unit", "shared_carveouts_kb", "line_bytes", "sector_bytes",
         "shared_banks", "shared_bank_bytes", "timing"),
    "timing": ("clock_mhz", "time_offset_ns", "launch_floor_cycles", "cta_launch_cycles",
               "cta_retire_cycles", "pipe_interval", "memory_issue_slots", "latency",
               "store_retire_cycles", "branch_cycles", "dram_tail_cycles", "l2_tail_cycles",
               "l1_line_step_cycles", "dram_queue_cycles", "memory_queue_cycles", "l1_line_cycles",
               "shared_wavefront_cycles", "shared_instruction_cycles", "l2_read_bytes_per_cycle",
               "l2_write_cycles_per_sector", "l2_write_cycles_per_line", "dram_bytes_per_cycle",
               "dram_peak_bytes_per_second", "dram_write_cost", "dram_write_queue_cycles",
               "dram_fetch_bytes", "l2_bytes", "l2_ways", "l2_dirty_bytes", "l1_bytes", "l1_ways",
               "atomic_same_address_cycles", "atomic_same_address_cycles_f32", "atomic_units",
               "atomic_spread_cycles", "atomic_interleave_bytes",
               "atomic_line_cycles", "shared_atomic_same_lane_cycles",
               "shared_atomic_same_lane_throughput", "shared_atomic_f32_round_cycles",
               "shared_atomic_f32_round_sass", "barrier_cycles", "barrier_cycles_per_warp",
               "loop_control_factor", "ops"),
    "timing.latency": ("fma", "alu", "imad", "fp64", "mufu", "shfl", "shared", "atomic_shared",
                       "atomic_global", "l1", "l2", "dram"),
    "timing.pipe_interval": ("fma", "alu", "imad", "fp64", "mufu", "shfl", "branch"),
    "timing.ops": ("*.*",),
}


# memory geometry the engines are built for (sector masks of four sectors a line in
# simt/sim/timing/memsys.py and caches.py, sector counting and the bank rule in
# simt/sim/precise/memstats.py and banks.py): an architecture file states its own, and one the
# engines cannot replay is refused
MODELLED_GEOMETRY = {"line_bytes": 128, "sector_bytes": 32, "shared_banks": 32, "shared_bank_bytes": 4}


class ArchError(SimtError, ValueError):
    """An architecture that is unknown, unreadable or missing a fact the code needs."""


@dataclass(frozen=True)
class Arch:
    """``name``: the architecture's name (``sm_90``) or, for a file given by path, that path;
    ``key``: what caches of per-architecture tables are keyed by (a file's key includes a hash
    of its contents)."""
    name: str
    data: dict
    key: str = ""

    def __post_init__(self):
        if not self.key:
            object.__setattr__(self, "key", self.name)

    def __getattr__(self, key):
        try:
            return self.data[key]
        except KeyError:
            raise AttributeError(key) from None

    def shared_per_block(self, shared_bytes: int) -> int:
        """Shared memory a block takes from its SM: its own plus the reserved part, rounded up
        to the allocation unit."""
        d = self.data
        unit = d["shared_allocation_unit"]
        return -(-(shared_bytes + d["reserved_shared_per_block"]) // unit) * unit

    def carveout(self, shared_per_sm: int, above: bool = False) -> int:
        """The smallest shared-memory carveout (bytes) that holds ``shared_per_sm`` (with
        ``above``, the smallest larger than it); the largest where none does."""
        sizes = [kb * 1024 for kb in self.data["shared_carveouts_kb"]]
        return next((s for s in sizes if s > shared_per_sm or (s == shared_per_sm and not above)), sizes[-1])

    def driver_carveout(self, per_block: int, by_warps: int, most: int) -> int:
        """The carveout the driver configures for a launch of blocks taking ``per_block`` bytes
        of shared memory (the reserved part included), ``by_warps`` blocks an SM by its warps,
        ``most`` by every other limit. Where the file gives the driver's rule
        (``driver_carveout``: the smallest carveout above ``scale`` x ``by_warps`` (counted to
        at most ``most_blocks``) x ``per_block`` + ``extra_bytes``: the H200's, fitted to Nsight
        Compute's launch__occupancy_limit_shared_mem, benchmarks/timing/carveout_fit.py), that
        one, never less than ``most`` blocks hold; else the smallest that holds ``most``."""
        least = self.carveout(max(1, most) * per_block)
        rule = self.data.get("driver_carveout")
        if not rule:
            return least
        blocks = min(by_warps, self.data["max_blocks_per_sm"], rule.get("most_blocks", by_warps))
        want = rule["scale"] * blocks * per_block + rule["extra_bytes"]
        return max(least, self.carveout(want, above=True))

    def occupancy(self, threads_per_block: int, regs_per_thread: int, shared_per_block: int) -> dict:
        """Blocks per SM and the limiting resource (the CUDA occupancy calculator's formula).

        The driver picks, per launch, a shared-memory carveout that allows at least the most
        blocks the other limits allow (``driver_carveout``); ``shared`` is the blocks per SM
        that carveout holds (Nsight Compute's ``launch__occupancy_limit_shared_mem``),
        ``carveout`` its bytes (``launch__shared_mem_config_size``; the L1 is the rest).
        """
        d = self.data
        warps = -(-threads_per_block // 32)
        by_warps = d["max_warps_per_sm"] // warps
        unit = d["register_allocation_unit"]
        regs_per_warp = -(-max(1, regs_per_thread) * 32 // unit) * unit
        # the register file is split among the schedulers; a warp's registers sit in one part
        parts = d["schedulers_per_sm"]
        by_regs = (d["registers_per_sm"] // parts // regs_per_warp) * parts // warps
        per_block = self.shared_per_block(shared_per_block)

        def by_shared(capacity: int) -> int:        # a block taking none is never limited by it
            return capacity // per_block if per_block else d["max_blocks_per_sm"]
        most = min(by_warps, d["max_blocks_per_sm"], by_regs, by_shared(d["shared_per_sm"]))
        carve = self.driver_carveout(per_block, by_warps, most)
        limits = {"warps": by_warps, "blocks": d["max_blocks_per_sm"], "registers": by_regs,
                  "shared": by_shared(carve)}
        limiter = min(limits, key=limits.get)
        return {"blocks_per_sm": max(0, limits[limiter]), "limiter": limiter, **limits,
                "carveout": carve, "registers_per_thread": regs_per_thread,
                "shared_per_block": per_block}


@lru_cache(maxsize=None)
def known_archs() -> tuple[str, ...]:
    """The architectures simt ships: the JSON files of this folder, by name, newest first
    (read once: the folder is part of the installed package)."""
    def generation(name: str) -> tuple[int, str]:
        digits = "".join(c for c in name if c.isdigit())
        return int(digits or 0), name
    return tuple(sorted((p.stem for p in ARCH_DIR.glob("*.json")), key=generation, reverse=True))


def is_path(arch: str) -> bool:
    return arch.endswith(".json") or "/" in arch or "\\" in arch


def load_arch(arch: str) -> Arch:
    """The architecture ``arch``: a name simt ships (``sm_90``) or a path to a JSON file laid
    out as those are. ArchError naming the file and the key when something is missing."""
    if not isinstance(arch, (str, Path)):
        raise ArchError(f"an architecture is a name ({', '.join(known_archs())}) or a path to a "
                        f"JSON file, got {arch!r}")
    arch = str(arch)
    if not is_path(arch):
        return _load_shipped(arch)
    path = Path(arch).expanduser()
    try:
        stat = path.resolve().stat()
    except OSError as e:
        raise ArchError(f"architecture file {arch}: cannot read it ({e.strerror})") from None
    return _load_file(str(path.resolve()), stat.st_mtime_ns, stat.st_size)


def with_timing(arch, **keys) -> str:
    """The path of a copy of the architecture ``arch`` (a name simt ships or a file's path),
    written under the same file name to a new temporary folder, whose ``timing`` section has
    ``keys`` set: what a constant buys, asked without editing the file (the fits in
    benchmarks/timing replay a microbenchmark under each value tried)."""
    src = Path(arch) if is_path(str(arch)) else ARCH_DIR / f"{arch}.json"
    data = json.loads(src.read_text())
    data["timing"].update(keys)
    out = Path(tempfile.mkdtemp()) / src.name
    out.write_text(json.dumps(data))
    return str(out)


@lru_cache(maxsize=None)
def _load_shipped(arch: str) -> Arch:
    if arch not in known_archs():
        raise ArchError(f"unknown arch {arch!r}; simt models {', '.join(known_archs())}, "
                        f"or give the path of an architecture JSON file")
    return _load(str(ARCH_DIR / f"{arch}.json"), arch)


@lru_cache(maxsize=None)
def _load_file(path: str, mtime_ns: int, size: int) -> Arch:
    return _load(path, path)


def _load(path: str, name: str) -> Arch:      # its callers cache (a file: by its mtime and size)
    try:
        text = Path(path).read_text()
    except OSError as e:
        raise ArchError(f"architecture file {path}: cannot read it ({e.strerror})") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise ArchError(f"architecture file {path}: not valid JSON ({e})") from None
    validate(data, path)
    key = name if name == Path(path).stem and Path(path).parent == ARCH_DIR else \
        f"{name}#{hashlib.sha1(text.encode()).hexdigest()[:12]}"
    return Arch(name, data, key)


def validate(data, path: str) -> None:
    """ArchError naming ``path`` and the first key of REQUIRED that ``data`` lacks."""
    if not isinstance(data, dict):
        raise ArchError(f"architecture file {path}: expected a JSON object at the top level")
    for section, keys in REQUIRED.items():
        where = data
        for part in section.split(".") if section else ():
            where = where[part]           # present: its parent section lists it, checked before
            if not isinstance(where, dict):
                raise ArchError(f"architecture file {path}: '{section}' must be a JSON object")
        for key in keys:
            if key not in where:
                full = f"{section}.{key}" if section else key
                raise ArchError(f"architecture file {path} lacks the key '{full}', which simt "
                                f"needs (see simt/arch/sm_90.json for its meaning and source)")
    from ..sim.atomic_log import THREADS_PER_BLOCK_KEY      # threads are ordered by block * this + thread
    if data["max_threads_per_block"] > THREADS_PER_BLOCK_KEY:
        raise ArchError(f"architecture file {path}: max_threads_per_block is "
                        f"{data['max_threads_per_block']}; simt's engines run blocks of at most "
                        f"{THREADS_PER_BLOCK_KEY} threads")
    for key, modelled in MODELLED_GEOMETRY.items():
        if data[key] != modelled:
            g = MODELLED_GEOMETRY
            raise ArchError(f"architecture file {path}: {key} is {data[key]}, but simt's memory model "
                            f"replays {g['line_bytes']}-byte lines of {g['sector_bytes']}-byte sectors "
                            f"and {g['shared_banks']} shared-memory banks of {g['shared_bank_bytes']} "
                            f"bytes only")
    # a pipe the SASS table puts opcodes on needs its interval (the ADU's is optional without)
    for pipe in data["timing"].get("sass_pipes", {}):
        if pipe not in data["timing"]["pipe_interval"]:
            raise ArchError(f"architecture file {path}: timing.sass_pipes puts opcodes on the '{pipe}' "
                            f"pipe, but timing.pipe_interval has no '{pipe}' (cycles per warp instruction "
                            f"per scheduler; see simt/arch/sm_90.json)")
    # optional (a file without them: one partition, L2 hits bound by their bytes alone)
    parts = data["timing"].get("l2_partitions", 1)
    if parts not in (1, 2) or isinstance(parts, bool):
        raise ArchError(f"architecture file {path}: timing.l2_partitions is {parts!r}; the timing model "
                        f"has one L2 or two partitions")
    for key, what in (("l1_tag_line_cycles", "cycles a line"), ("l2_requests_per_cycle", "L2 read requests a cycle")):
        v = data["timing"].get(key)
        if v is not None and not (isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0):
            raise ArchError(f"architecture file {path}: timing.{key} is {v!r}; it must be a positive number of {what}")
