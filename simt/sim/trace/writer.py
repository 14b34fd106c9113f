"""The trace listener: JSON Lines, one record per warp-level instruction, written as the
precise engine runs (constant memory), gzip-compressed when the path ends in ``.gz``.

Written to survive a crash: records go to the file in chunks (at most FLUSH_BYTES of text or
FLUSH_SECONDS apart), each chunk whole lines and, for ``.gz``, one complete gzip member, in
one write. The header is written at once, the trailer when the launch finishes. A process
killed mid-launch (SIGKILL, SIGTERM) leaves every chunk written before, at most one cut
piece after them, and no trailer; Ctrl-C (or any error) writes the pending chunk first.
``simt.analysis.load_trace`` reads what is whole and says what it dropped.

The format is documented in traces/README.md and versioned by SCHEMA_VERSION.
"""
from __future__ import annotations

import gzip
import json
import os
import time
from dataclasses import dataclass, field

import numpy as np

from ... import __version__
from ...ir.mir import AtomArg, Instr, Op
from ...ir.printer import format_instr

SCHEMA_VERSION = 1
MEMORY_OPS = (Op.LD, Op.ST, Op.ATOM)
FLUSH_BYTES = 1 << 20        # text per chunk (one gzip member)
FLUSH_SECONDS = 1.0          # a chunk at least this often while records come
GZIP_LEVEL = 6


@dataclass
class TraceOptions:
    """What to record. ``blocks``/``warps``: linear block ids / warp indices within a block
    to keep (None keeps all); ``max_records`` caps the instruction records."""
    path: str
    memory_only: bool = False
    blocks: tuple[int, ...] | None = None
    warps: tuple[int, ...] | None = None
    max_records: int | None = None
    launch: int = 0
    extra: dict = field(default_factory=dict)

    def filters(self) -> dict:
        return {"memory_only": self.memory_only, "blocks": self.blocks, "warps": self.warps,
                "max_records": self.max_records}


def op_name(ins: Instr) -> str:
    """The op as the MIR printer spells it: add, ld.shared, atom.global.add, shfl.down..."""
    text = format_instr(ins).split(";")[0].strip()
    if " = " in text:
        text = text.split(" = ", 1)[1]
    return text.split(" ", 1)[0]


class TraceWriter:
    """Listener on the precise engine (see simt.sim.precise.engine.run's ``listener``)."""

    def __init__(self, options: TraceOptions):
        self.options = options
        self.records = 0
        self.truncated = False
        self._memory: dict[int, tuple] = {}
        self._static: dict[int, tuple] = {}
        path = options.path
        self._file = open(path, "wb", buffering=0)
        self._gzip = str(path).endswith(".gz")
        self._pending: list[str] = []
        self._pending_chars = 0
        self._last_flush = time.monotonic()
        self._blocks = None if options.blocks is None else set(options.blocks)
        self._warps = None if options.warps is None else set(options.warps)

    # ---- listener interface ------------------------------------------------------------------
    def launch_started(self, fn, cfg, arch) -> None:
        warps_per_block = -(-cfg.threads_per_block // 32)
        header = {"type": "header", "schema": SCHEMA_VERSION, "simt": __version__,
                  "kernel": fn.name, "launch": self.options.launch, "arch": arch.name,
                  "dim": list(cfg.dim), "block": list(cfg.block), "grid": list(cfg.grid),
                  "threads_per_block": cfg.threads_per_block, "warps_per_block": warps_per_block,
                  "source": fn.loc.file if fn.loc else "", "filters": self.options.filters()}
        self._write(json.dumps(header) + "\n")
        self.flush()                 # a trace cut at once still says what it is
        self.kernel = fn.name

    def memory(self, batch, ins: Instr, warps, rows, width_bytes: int, waves=None, ideal=None,
               sectors=None) -> None:
        self._memory[id(ins)] = (warps, rows, width_bytes, waves, ideal, sectors)

    def block_executed(self, batch, blk, issue: np.ndarray) -> None:
        memory, self._memory = self._memory, {}
        if self.truncated:
            return
        running = np.flatnonzero(batch.warp_bits)
        masks = batch.warp_bits[running]
        block_ids = running // batch.warps_per_cta + batch.first_cta
        warp_ids = running % batch.warps_per_cta
        keep = np.ones(running.size, dtype=bool)
        if self._blocks is not None:
            keep &= np.isin(block_ids, list(self._blocks))
        if self._warps is not None:
            keep &= np.isin(warp_ids, list(self._warps))
        if not keep.any():
            return
        taken = batch.branch_taken_bits(blk) if blk.term.op is Op.CBR else None
        cols = np.flatnonzero(keep).tolist()
        launch = self.options.launch
        blocks, warps, mask_list = block_ids.tolist(), warp_ids.tolist(), masks.tolist()
        # the per-warp parts of every record of this step, formatted once
        head = {k: f'{{"type":"inst","launch":{launch},"block":{blocks[k]},"warp":{warps[k]},'
                for k in cols}
        tail = {k: f',"mask":{mask_list[k]},"active":{mask_list[k].bit_count()},"cycle":'
                for k in cols}
        lines = []
        for j, ins in enumerate(blk.instrs):
            is_mem = ins.op in MEMORY_OPS
            if self.options.memory_only and not is_mem:
                continue
            static = self._static.get(id(ins))
            if static is None:
                static = self._static[id(ins)] = self._static_fields(blk, j, ins)
            cycles = issue[j].tolist()
            mem = memory.get(id(ins)) if is_mem else None
            if mem is not None:
                extra = self._memory_fields(mem)
                lines.extend(head[k] + static + tail[k] + str(cycles[k]) + extra[k] + "}\n"
                             for k in cols)
            elif taken is not None and ins is blk.term:
                t = taken.tolist()
                lines.extend(head[k] + static + tail[k] + str(cycles[k]) + f',"taken":{t[k]}}}\n'
                             for k in cols)
            else:
                lines.extend(head[k] + static + tail[k] + str(cycles[k]) + "}\n" for k in cols)
        self._emit(lines)

    def launch_finished(self, metrics) -> None:
        trailer = {"type": "end", "records": self.records, "truncated": self.truncated,
                   "metrics": {k: v for k, v in metrics.items() if isinstance(v, (int, float))}}
        limit = getattr(metrics, "details", {}).get("bottleneck")
        if limit:
            trailer["bottleneck"] = {"limiter": limit["limiter"], "pct_of_peak": float(limit["pct_of_peak"]),
                                     "why": limit["why"]}
        self._write(json.dumps(trailer) + "\n")
        self.close()

    def close(self) -> None:
        """Write what is pending (whole lines) and close; the file then ends at a chunk."""
        if not self._file.closed:
            try:
                self.flush()
            finally:
                self._file.close()

    # ---- output ---------------------------------------------------------------------------------
    def _write(self, text: str) -> None:
        self._pending.append(text)
        self._pending_chars += len(text)
        if self._pending_chars >= FLUSH_BYTES or time.monotonic() - self._last_flush >= FLUSH_SECONDS:
            self.flush()

    def flush(self) -> None:
        """One chunk to the file: whole lines; for .gz, one complete gzip member; one write."""
        self._last_flush = time.monotonic()
        if not self._pending:
            return
        data = "".join(self._pending).encode("utf-8")
        self._pending, self._pending_chars = [], 0
        if self._gzip:
            data = gzip.compress(data, compresslevel=GZIP_LEVEL, mtime=0)
        view = memoryview(data)
        while view:
            written = self._file.write(view)
            view = view[written:]

    # ---- formatting ----------------------------------------------------------------------------
    def _static_fields(self, blk, j: int, ins: Instr) -> str:
        line = ins.loc.line if ins.loc else 0
        col = ins.loc.col if ins.loc else 0
        return f'"pc":"{blk.label}:{j}","op":"{op_name(ins)}","line":{line},"col":{col}'

    @staticmethod
    def _memory_fields(mem) -> list[str]:
        """The memory part of each running warp's record (addresses: null when inactive)."""
        warps, rows, width, waves, ideal, sectors = mem
        space = "shared" if waves is not None else "global"
        # addresses are never negative, so the inactive marker -1 is the only "-1" in the text
        addrs = [str(r).replace("-1", "null").replace(" ", "") for r in rows.tolist()]
        if waves is not None:
            return [f',"space":"{space}","width":{width},"addr":{a},"wavefronts":{w},"ideal":{i}'
                    for a, w, i in zip(addrs, waves.tolist(), ideal.tolist())]
        return [f',"space":"{space}","width":{width},"addr":{a},"sectors":{n},"requests":1'
                for a, n in zip(addrs, sectors.tolist())]

    def _emit(self, lines: list[str]) -> None:
        cap = self.options.max_records
        if cap is not None and self.records + len(lines) > cap:
            lines = lines[:max(0, cap - self.records)]
            self.truncated = True
        self.records += len(lines)
        self._write("".join(lines))


def run(fn, cfg, args, trace: TraceOptions | None = None):
    """The ``cpu:trace`` engine: the precise engine with a TraceWriter listening."""
    from ..precise import run as precise_run
    if trace is None:
        raise ValueError("device 'cpu:trace' needs a trace file: simt.launch(..., trace='run.jsonl')")
    import dataclasses
    writer = TraceWriter(trace)
    try:   # records carry issue cycles: the timing model always runs under a trace
        metrics = precise_run(fn, dataclasses.replace(cfg, timing=True), args, listener=writer)
    finally:
        writer.close()
    metrics.details["trace"] = {"path": str(trace.path), "records": writer.records,
                                "truncated": writer.truncated}
    return metrics


__all__ = ["TraceOptions", "TraceWriter", "run", "SCHEMA_VERSION", "AtomArg"]
