"""What a sampled replay's lines stand for (model.simulate replays a sample of the SMs of a big
launch: model.sm_sample).

The sample is the blocks c with c mod n_sm in [s, s + n_run). A line whose blocks leave
residues R (mod n_sm) would be in the sample for a fraction p of the n_sm rotations of that
rule, p = (sum over R's circular gaps d of min(n_run, d)) / n_sm, so it stands for w = 1/p
lines of the whole grid (a Horvitz-Thompson estimate over the rotations), w in [1, f] with
f = n_sm / n_run: a block's private line stands for f, a line its neighbour block shares for
about f/2, a line every block reads (a lookup table, a matrix all blocks read, a hash table
probed at random) for 1.

The replay's L2 (memsys) keeps its whole capacity: beside each line it allocates, it places
the w - 1 lines of the grid's that the SMs not replayed allocate at about the same time, and
it ages a line by its w, so the lines all SMs share stay as long as on the GPU while private
data streams past them. And the DRAM reads a line the grid shares once: a sampled replay's
first read of a line stands for w / f of its SMs' share of the DRAM's traffic (plus the
reads again that miss), while a line read again after the L2 evicted it is read again by
every SM that reads it.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
from simt import numba_cache  # noqa: F401  (first: numba's caches keyed on all of simt's numba code)
from numba import njit

_HASH = 0x9E3779B97F4A7C15 - (1 << 64)     # as an int64


class Footprint(NamedTuple):
    keys: np.ndarray        # an open-addressing table of the replayed lines (-1: empty slot)
    weights: np.ndarray     # ... and each one's w


def none() -> Footprint:
    """No line recorded: every line stands for f (``line_weight`` of a line not in the table)."""
    return Footprint(np.full(1, -1, np.int64), np.ones(1, np.float64))


class Accesses(NamedTuple):
    """The recorded global accesses, per event the block that made it (``cta``), and which
    blocks the sample replays (``kept``)."""
    cta: np.ndarray
    kept: np.ndarray
    ev_n: np.ndarray
    ev_ptr: np.ndarray
    sec: np.ndarray


def accesses(rec, ctas: np.ndarray, warps_per_cta: int) -> Accesses | None:
    """What ``footprint`` reads of the recording, made once for its lines and its sectors
    (None where nothing global was recorded)."""
    if rec.steps.n == 0 or rec.sec.n == 0:
        return None
    _, nrun, first_ev, step_warp = rec.step_arrays()
    kept = np.zeros(rec.recorded_ctas, np.bool_)
    kept[ctas] = True
    ev_n, ev_ptr = rec.ev_n.view(), rec.ev_ptr.view()
    cta = _blocks(nrun, first_ev, step_warp, rec.warps.view(), ev_n, ev_ptr, warps_per_cta)
    return Accesses(cta, kept, ev_n, ev_ptr, rec.sec.view())


def footprint(acc: Accesses | None, n_sm: int, n_run: int, shift: int = 2) -> Footprint:
    """The lines the replayed blocks touch, each with the w it stands for, from every recorded
    block's global accesses (``accesses``; two passes over the recorded sectors, no sort).
    With ``shift`` 0, the sectors instead (keys line * 4 + sector): what an atomic's first
    read of a sector stands for, where the grid's updates of a line fall on its sectors apart
    (a hash table's slots, each updated once or twice, stand for f; the line, touched by two
    blocks, for f / 2)."""
    if acc is None:
        return none()
    n_kept = _kept_lines(acc.cta, acc.kept, acc.ev_n, acc.ev_ptr, acc.sec, shift)
    if n_kept == 0:
        return none()
    size = 1 << max(4, int(2 * n_kept - 1).bit_length())
    keys = np.full(size, -1, np.int64)
    residues = np.zeros((size, (n_sm + 63) // 64), np.uint64)
    _fill(acc.cta, acc.kept, acc.ev_n, acc.ev_ptr, acc.sec, keys, residues, n_sm, shift)
    weights = np.ones(size, np.float64)
    _weigh(keys, residues, weights, n_sm, n_run)
    return Footprint(keys, weights)


def widely_shared_bytes(lines: Footprint, f: float) -> float:
    """The bytes of the grid's lines that blocks on SMs far apart read (w <= f / 2: more than
    a neighbouring block's, as a stencil's rows are), as the replayed lines' weights estimate
    them (a line's w stands for w of the grid's)."""
    w = lines.weights[(lines.keys != -1) & (lines.weights <= f / 2)]
    return 128.0 * float(w.sum())


@njit(cache=True, nogil=True, _nrt=False)
def _slot(keys, line):
    """The slot of ``line`` in the table, or of the empty slot where it would go."""
    mask = keys.size - 1
    i = ((line * _HASH) >> 32) & mask          # int64 arithmetic: the product wraps
    while keys[i] != -1 and keys[i] != line:
        i = (i + 1) & mask
    return i


@njit(cache=True, nogil=True, _nrt=False)
def line_weight(keys, weights, line, f):
    """The w of a replayed ``line`` (f, a private line's, where the table does not hold it)."""
    i = _slot(keys, line)
    return weights[i] if keys[i] == line else f


@njit(cache=True, nogil=True)
def _blocks(nrun, first_ev, step_warp, ran, ev_n, ev_ptr, warps_per_cta):
    """Per recorded event of a global access (-1 for the others), the block that made it."""
    out = np.full(ev_n.size, -1, np.int64)
    n_ev = ev_n.size
    for s in range(nrun.size):
        n = nrun[s]
        if n == 0:
            continue
        e1 = first_ev[s + 1] if s + 1 < nrun.size else n_ev
        for e in range(first_ev[s], e1):
            if ev_ptr[e] >= 0:
                out[e] = ran[step_warp[s] + (e - first_ev[s]) % n] // warps_per_cta
    return out


@njit(cache=True, nogil=True)
def _kept_lines(cta, kept, ev_n, ev_ptr, sec, shift):
    """A bound on how many lines the replayed blocks touch: their accesses' lines, counting a
    line again only where an access's sectors leave it and come back."""
    n = 0
    for e in range(ev_n.size):
        if cta[e] >= 0 and kept[cta[e]]:
            last = -1
            for q in range(ev_n[e]):
                line = sec[ev_ptr[e] + q] >> shift
                if line != last:
                    n += 1
                    last = line
    return n


@njit(cache=True, nogil=True)
def _fill(cta, kept, ev_n, ev_ptr, sec, keys, residues, n_sm, shift):
    """Put the replayed blocks' lines in the table, then mark on each the residues (mod n_sm)
    of every block that touches it."""
    for e in range(ev_n.size):
        if cta[e] >= 0 and kept[cta[e]]:
            last = -1
            for q in range(ev_n[e]):
                line = sec[ev_ptr[e] + q] >> shift
                if line != last:                 # an access's next sector is mostly on its line
                    keys[_slot(keys, line)] = line
                    last = line
    for e in range(ev_n.size):
        c = cta[e]
        if c < 0:
            continue
        rho = c % n_sm
        bit = np.uint64(1) << np.uint64(rho & 63)
        last = -1
        for q in range(ev_n[e]):
            line = sec[ev_ptr[e] + q] >> shift
            if line == last:                     # marked already
                continue
            last = line
            i = _slot(keys, line)
            if keys[i] == line:
                residues[i, rho >> 6] |= bit


@njit(cache=True, nogil=True)
def _weigh(keys, residues, weights, n_sm, n_run):
    """Each line's w from its residues."""
    f = n_sm / n_run
    for i in range(keys.size):
        if keys[i] == -1:
            continue
        first = -1
        prev = -1
        covered = 0
        for rho in range(n_sm):
            if (residues[i, rho >> 6] >> np.uint64(rho & 63)) & np.uint64(1):
                if prev >= 0:
                    covered += min(n_run, rho - prev)
                else:
                    first = rho
                prev = rho
        covered += min(n_run, first + n_sm - prev)
        w = min(f, max(1.0, n_sm / covered))
        weights[i] = w
