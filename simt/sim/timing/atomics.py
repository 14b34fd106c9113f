"""The L2's atomic units, compiled and inlined into the memory system (memsys.global_access
hands each line of a global atomic here once its L2 and DRAM side is done): which unit takes
the line (addresses interleaved over them), how long it keeps the unit, and the units' free
and busy times. A line the unit updated within atomic_hot_window_cycles takes it for at least
atomic_line_cycles, one it did not for atomic_cold_sector_cycles (atomic_lines.cu: lanes'
lines hashed over 2^10 lines go at the hot rate, over 2^14 and more at the cold one, whether
or not a warp's lanes go to consecutive lines); lanes on one word take their turns as
memsys counted them, and a float add waits for the adder when the unit's last update was a
float add to one of its sectors (atomic_hot.cu).
"""
from __future__ import annotations

from simt import numba_cache  # noqa: F401  (first: numba's caches keyed on all of simt's numba code)
from numba import njit

from .indices import P_ATOM_COLD, P_ATOM_INTERLEAVE, P_ATOM_LINE, P_ATOM_SPREAD, P_ATOM_UNITS, P_ATOM_WINDOW, P_SAMPLE


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def sectors_of(words):
    """The sectors (bits 0-3) of a line's word mask (8 bits a sector)."""
    s = 0
    for q in range(4):
        if (words >> (8 * q)) & 0xFF:
            s |= 1 << q
    return s


@njit(cache=True, nogil=True, _nrt=False)
def serve(line, nb, words, turns, float_wait, singles, a1, here, P, atoms):
    """A line's update at its unit: ``nb`` sectors, the float ``words`` it adds to (0 for an
    integer atomic), the lanes' ``turns`` on their words, a float sector's ``float_wait`` and
    the ``singles`` (sectors of one lane a word), arriving at ``a1``, standing for ``here``
    updates of the line (a sampled replay); the others the replay stands for are spread over
    every unit. Returns (when the unit starts on it, how long it takes it)."""
    atom_free, atom_busy, atom_line, atom_head = atoms
    units = int(P[P_ATOM_UNITS])
    unit = int((line * 128) // int(P[P_ATOM_INTERLEAVE])) % units
    a0 = max(a1, atom_free[unit])
    # hot: the unit updated the line within the window; a line the replay updates stands for
    # ``here`` updates of it, so it comes back ``here`` times as often on the GPU
    ring = atom_line.shape[1]
    head = atom_head[unit]
    hot_line = P[P_ATOM_WINDOW] <= 0.0
    oldest = a0 - P[P_ATOM_WINDOW] * here
    for r in range(min(head, ring)):
        e = (head - 1 - r) % ring
        if atom_line[unit, e, 2] < oldest:
            break
        if atom_line[unit, e, 0] == line:
            hot_line = True
            break
    hot = False
    if words != 0:
        # a float add waits for the adder's result when the unit's last update was a float add
        # to one of its sectors and the unit is still busy; an update to another sector between
        # them hides the wait (atomic_hot.py, H100: a warp's 32 lanes on one word, the words 32
        # words apart, 2-4 a unit, go at 1.9 cycles a lane, as 32 words of one line do, against
        # 3.5 all on one word; lanes at random over a line's words, hot_words.py, as fast as
        # integer adds, and 4 words of one sector 2.4x slower)
        mine = sectors_of(words)
        last = (head - 1) % ring
        hot = head > 0 and atom_line[unit, last, 0] == line and (atom_line[unit, last, 1] & mine) != 0
        hot &= atom_free[unit] > a1
    e = head % ring
    atom_line[unit, e, 0] = line
    atom_line[unit, e, 1] = sectors_of(words)       # the float sectors (none for an integer atomic)
    atom_line[unit, e, 2] = int(a0)
    atom_head[unit] = head + 1
    # the longer of the integer turns, (hot) a float sector's wait, and a line's least (a cold
    # line of one sector with one lane a word takes the cold cost, not atomic_spread_cycles,
    # which red_region measured on one hot sector: red_scatter_l2's one lane a line is what
    # atomic_cold_sector_cycles is fitted to; a line of several sectors takes each at
    # atomic_spread_cycles, hot or cold: atomic_own_line.cu and atomic_lines.cu's red_wline, a
    # word a lane, go at 8-12 lines a cycle either way)
    floor = P[P_ATOM_LINE] if hot_line else P[P_ATOM_COLD]
    if not hot_line and nb == 1:
        turns -= singles * max(0.0, P[P_ATOM_SPREAD] - P[P_ATOM_COLD])
    service = max(turns, float_wait if hot else 0.0, floor)
    if P[P_SAMPLE] > 1.0:
        spread = service * (P[P_SAMPLE] - here) / units
        for u in range(units):
            atom_free[u] = max(atom_free[u], a1) + spread
            atom_busy[u] += spread
    atom_free[unit] = a0 + service * here
    atom_busy[unit] += service * here
    return a0, service
