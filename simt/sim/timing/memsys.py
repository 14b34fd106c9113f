"""The timing machine's memory system (machine.py issues; this answers when a request's
data is there), compiled and inlined into the machine's loop:

- shared memory: the SM's L1 data stage serves one wavefront a cycle (bank conflicts cost
  more wavefronts); atomics serialise on one address, float atomics run as CAS loops. The
  lines a global load brings back take the same stage, a wavefront each (micro9.cu: shared
  wavefronts and L1-hit lines add up, they do not overlap);
- global memory: the SM's L1 (tag stage one 128-byte line a cycle, a sectored LRU cache);
  misses go to the L2 (a bandwidth queue, l2queue.py; a sectored LRU cache that fetches 64
  bytes from DRAM per miss, write-back with a bound on dirty data), two partitions where the
  architecture says so, each caching what its half of the SMs reads (``_l2_read``; l2_sharing.cu), and a
  hit takes the queue for its bytes or one request's time; DRAM is one queue at
  its measured bandwidth, where a lone 64-byte half of a line (or an atomic's sector) takes
  the time of a random fetch, shared by the lone fetches of its page in the request
  (dram.py), and a read's latency grows with the DRAM's recent use, written bytes
  counting with a longer service time than read ones (micro5.cu, micro8.cu). Data written into
  the L2 takes its queue: stores, and the fill of every miss for as long as DRAM takes to
  deliver it; hits (read out at the L2's read rate) and stores wait behind them, misses go on
  to DRAM. That is why a copy costs its reads plus its writes even while the L2 holds every
  written byte (micro.cu stream_copy at 4-64 MB against stream_read), while a read stream is
  limited by DRAM alone. A request's latency is that of its slowest line, and a request that
  misses in k places waits for the slowest of k: base + tail * (H(k) - 1). For DRAM, k counts
  64-byte fetches (the tail was measured with one fetch a lane, micro2.cu chase_dram_lanes; a
  full 128-byte line is two), those of the warp's earlier loads still in flight included: the
  warp waits for the slowest of all (micro7.cu);
- atomics: the L2's atomic units (atomics.py: which unit takes a line, how long it keeps it,
  hot lines and cold ones) apply one lane a time per word. A float add waits for the previous result on its word only when the unit
  updated one of the request's words lately; the lanes of one request on one word go at
  the integer rate (warp_words.py). An atomic that misses reads only its own sectors from
  DRAM (not a load's 64-byte pair: warp_words.py), and leaves them dirty, written back as a
  store's are.
"""
from __future__ import annotations

import numpy as np
from simt import numba_cache  # noqa: F401  (first: numba's caches keyed on all of simt's numba code)
from numba import njit

from . import atomics, isa
from .dram import dram_cost, dram_read, dram_write, page_mates, writeback_mates, writeback_wait
from .caches import find, halves, l1_set_of, sectors, set_of, victim
from .footprint import line_weight
from .l2queue import hit_busy, l2_busy, l2_queue, l2_take, merge_slot, merges
from .indices import (G_ATOM_BUSY, G_DIRTIED, G_ATOM_OPS, G_DRAM_WRITE, G_L1_HITS, G_DIRTIED_W, G_L1_SECTORS,
                      G_L2_ATOM, G_L2_ATOM_HIT, G_L2_READ, G_L2_READ_HIT, LS_ACK, LS_ENTRIES, LS_HOLD,
                      LS_KEY, LS_PENDING, LS_PKEY, LS_WARP, G_L2_WRITE, M_L1T, P_ATOM_SAME, P_ATOM_SAME_F,
                      P_ATOM_SPREAD, P_DRAM_ACCESS, P_DRAM_BPC, P_DRAM_FETCH, P_DRAM_LAT, P_DRAM_TAIL, P_G_ATOM_LAT, P_L1_LAT,
                      P_L1_FOLD, P_L1_LINE_CYCLES, P_L1_TAG_LINE, P_L1_LINE_STEP, P_L2_DIRTY_SECTORS, P_L2_LAT,
                      P_L2_MERGE, P_L2_MERGE_MOST, P_L2_PARTS, P_L2_READ_BPC, P_L2_TAIL, P_L2_WRITE_LINE,
                      P_L2_WRITE_SECTOR, P_QUEUE_ALLOWANCE, P_DRAM_RMW_ACCESS,
                      P_STORE_DATA, P_STORE_LINE, P_STORE_MERGE, P_STORE_MERGE_NEAR, P_STORE_MERGE_SHARE, P_STORE_SECTOR, P_SAMPLE, ST_DIRTY_SECTORS,
                      ST_FIFO_HEAD, ST_FIFO_TAIL, ST_HELD_UNTIL, ST_L2_FREE, ST_LRU_CLOCK, ST_NOW, ST_OTHERS,
                      ST_OTHERS_N, ST_REMISS, ST_REREAD, ST_WARP)


@njit(cache=True, nogil=True, _nrt=False)
def _l2_writeback(l2_tag, l2_init, l2_valid, l2_dirty, line, l2x, P, state, glob):
    """Write the dirty sectors of ``line`` (if still in L2) to DRAM and take them off the L2's
    count of dirty sectors, each by what its line stands for (``_stands_for``). A sector only
    partly written (never read in whole) is read from DRAM first, and the write-back is then a
    read-modify-write, alone costing dram_rmw_access_bytes where a lone access costs
    dram_access_bytes (atomic_lines.cu's st_rand over 256 MB)."""
    sets = l2_tag.shape[1]
    s = set_of(line, sets)
    w = find(l2_tag, l2_init, 0, s, line)
    if w < 0 or l2_dirty[0, s, w] == 0:
        return
    n = 0
    d = l2_dirty[0, s, w]
    mates = writeback_mates(line_of(line), P, state)
    lone = P_DRAM_ACCESS
    for b in range(4):
        if d & (1 << b):
            n += 1
            if not (l2_valid[0, s, w] & (1 << b)):
                dram_read(32.0, dram_cost(P[P_DRAM_FETCH], P[P_DRAM_FETCH], mates, P), state[ST_NOW], P, state,
                           glob)
                lone = P_DRAM_RMW_ACCESS
    bursts = halves(d)
    l2_dirty[0, s, w] = 0
    dram_write(n * 32.0, dram_cost(bursts * P[P_DRAM_FETCH], bursts * P[P_DRAM_FETCH], mates, P, lone), P, state,
               glob)
    state[ST_DIRTY_SECTORS] -= n * _stands_for(line, l2x, P)


@njit(cache=True, nogil=True, _nrt=False)
def _aged_victim(s, held, l2_tag, l2_stamp, now):
    """An empty way of set ``s``, else the one whose line's age (LRU clock ticks since its
    last use) times the w it stands for is largest."""
    best = -1
    oldest = -1.0
    for u in range(l2_tag.shape[2]):
        if l2_tag[0, s, u] == -1:
            return u
        age = (now - l2_stamp[0, s, u]) * held[0, s, u]
        if age > oldest:
            oldest = age
            best = u
    return best


@njit(cache=True, nogil=True, _nrt=False)
def _stands_for(line, l2x, P):
    """How many of the GPU's L2 lines the replay's ``line`` (a key) stands for: its footprint
    weight in a sampled replay (footprint.py), else 1. The L2's dirty sectors are counted in
    the GPU's units against the whole bound on dirty data (l2_dirty_bytes): a line of a
    private stream stands for f, one the whole grid updates (a hash table, a filter) for 1."""
    if P[P_SAMPLE] > 1.0:
        return line_weight(l2x[0], l2x[1], line_of(line), P[P_SAMPLE])
    return 1.0


@njit(cache=True, nogil=True, _nrt=False)
def _sampled_victim(line, s, l2x, l2_tag, l2_init, l2_valid, l2_dirty, l2_stamp, P, state, glob):
    """A sampled replay's way for ``line`` in set ``s``. The replay sees 1/f of the GPU's
    accesses, and a line stands for w of the grid's (footprint.py), in [1, f]:

    - beside it, the L2 takes the w - 1 lines it stands for that SMs not replayed allocate
      at about the same time, placeholders (tag -2, never hit) in sets spread by a hash, so
      that lines arrive in every set as often as on the GPU;
    - a line the whole grid shares (w = 1) is used 1/f as often as on the GPU, so a line's
      age counts w / f of the clock's ticks (here w: the same order), and the lines all SMs
      share stay as long as on the GPU while the SMs stream private data past them."""
    keys, weights, held = l2x[0], l2x[1], l2x[2]
    x = line_weight(keys, weights, line_of(line), P[P_SAMPLE])
    now = state[ST_LRU_CLOCK]
    sets = l2_tag.shape[1]
    state[ST_OTHERS] += x - 1.0
    while state[ST_OTHERS] >= 1.0:
        state[ST_OTHERS] -= 1.0
        state[ST_OTHERS_N] += 1.0
        p = set_of(int(state[ST_OTHERS_N]) + (1 << 40), sets)
        find(l2_tag, l2_init, 0, p, -3)          # (empties the set when first looked at)
        v = _aged_victim(p, held, l2_tag, l2_stamp, now)
        if l2_tag[0, p, v] >= 0 and l2_dirty[0, p, v] != 0:
            _l2_writeback(l2_tag, l2_init, l2_valid, l2_dirty, l2_tag[0, p, v], l2x, P, state, glob)
        l2_tag[0, p, v] = -2
        l2_valid[0, p, v] = 0
        l2_dirty[0, p, v] = 0
        l2_stamp[0, p, v] = int(now)
        held[0, p, v] = x
    w = _aged_victim(s, held, l2_tag, l2_stamp, now)
    held[0, s, w] = x
    return w


@njit(cache=True, nogil=True, _nrt=False)
def _l2_touch(line, mask, write, l2_tag, l2_init, l2_valid, l2_dirty, l2_words, l2_stamp, l2_ready, fifo, l2x,
              state, P, glob, words=0, pairs=True):
    """Look ``mask``'s sectors of ``line`` up in the L2 (allocating the line). Writes mark
    their sectors dirty and the ``words`` they wrote (8 bits a sector); a sector all of whose
    words are written is whole. Returns the mask of sectors that missed (reads only) and the
    line's place in the cache (set * ways + way)."""
    sets = l2_tag.shape[1]
    s = set_of(line, sets)
    w = find(l2_tag, l2_init, 0, s, line)
    state[ST_LRU_CLOCK] += 1
    if w < 0:
        w = (_sampled_victim(line, s, l2x, l2_tag, l2_init, l2_valid, l2_dirty, l2_stamp, P, state, glob)
             if P[P_SAMPLE] > 1.0 else victim(l2_tag, l2_stamp, 0, s))
        if l2_tag[0, s, w] >= 0 and l2_dirty[0, s, w] != 0:
            _l2_writeback(l2_tag, l2_init, l2_valid, l2_dirty, l2_tag[0, s, w], l2x, P, state, glob)
        l2_tag[0, s, w] = line
        l2_valid[0, s, w] = 0
        l2_dirty[0, s, w] = 0
        l2_words[0, s, w] = 0
        l2_ready[0, s, w] = 0.0
    l2_stamp[0, s, w] = int(state[ST_LRU_CLOCK])
    if write:
        wm = l2_words[0, s, w] | words
        l2_words[0, s, w] = wm
        for b in range(4):
            if ((wm >> (8 * b)) & 0xFF) == 0xFF:
                l2_valid[0, s, w] |= 1 << b
        fresh = mask & ~l2_dirty[0, s, w]
        l2_dirty[0, s, w] |= mask
        if fresh:
            w_line = _stands_for(line, l2x, P)
            state[ST_DIRTY_SECTORS] += sectors(fresh) * w_line
            glob[G_DIRTIED] += sectors(fresh)
            glob[G_DIRTIED_W] += sectors(fresh) * w_line
            head = int(state[ST_FIFO_HEAD])
            fifo[head % fifo.size] = line
            state[ST_FIFO_HEAD] += 1
            # bounded dirty data: write back the oldest dirty lines beyond the budget
            while (state[ST_DIRTY_SECTORS] > P[P_L2_DIRTY_SECTORS]
                   and state[ST_FIFO_TAIL] < state[ST_FIFO_HEAD]):
                old = fifo[int(state[ST_FIFO_TAIL]) % fifo.size]
                state[ST_FIFO_TAIL] += 1
                _l2_writeback(l2_tag, l2_init, l2_valid, l2_dirty, old, l2x, P, state, glob)
            if state[ST_FIFO_HEAD] - state[ST_FIFO_TAIL] >= fifo.size:    # never overwrite unread entries
                state[ST_FIFO_TAIL] = state[ST_FIFO_HEAD] - fifo.size + 1
        return 0, s * l2_tag.shape[2] + w
    missed = mask & ~l2_valid[0, s, w]
    if missed:
        # DRAM fetches 64 bytes for a load: a missing sector brings its pair (an atomic's, its
        # own 32 bytes: ``pairs`` False)
        fill = missed | ((missed & 0x5) << 1) | ((missed & 0xA) >> 1) if pairs else missed
        l2_valid[0, s, w] |= fill
    return missed, s * l2_tag.shape[2] + w


@njit(cache=True, nogil=True, _nrt=False)
def _sampled_share(line, missed, l2x, P, state, glob, hit_stat, per_sector=False):
    """Of the sectors ``missed`` of ``line`` that a sampled replay reads from DRAM, those that
    do not stand for reads of the GPU's (footprint.py): a first read of a 64-byte half stands
    for f reads of the GPU's, w of them the grid's first (one a line) and the rest reads again,
    which miss as often as the replay's reads of halves it fetched before do (a running
    estimate); a half read again stands for the SMs' share. Counts the part not read as hits
    (``hit_stat``); returns it as (64-byte halves, sectors). ``per_sector``: the reads are of
    single sectors (an atomic reads only its own: warp_words.py), each its own first read with
    its own w (the sectors of a line the grid's updates touch apart stand for more of the
    grid's first reads than the line does), and a miss on a half's other sector is not taken
    for a read again of the half."""
    fetched, f = l2x[3], P[P_SAMPLE]
    width = 1 if per_sector else 2          # sectors a part: a sector, or a 64-byte half
    first = 1.0 if per_sector else line_weight(l2x[0], l2x[1], line, f) / f
    drop_halves = 0.0
    drop_sectors = 0.0
    for b in range(4 // width):
        part = (missed >> (width * b)) & ((1 << width) - 1)
        if part:
            if per_sector:                  # the sector's own w (footprint.py, shift 0)
                key = line * 4 + b
                first = line_weight(l2x[5], l2x[6], key, f) / f
                key |= SECTOR_KEYS
            else:
                key = line * 2 + b
            if fetched_before(fetched, key):
                state[ST_REREAD] += sectors(part)
                state[ST_REMISS] += sectors(part)
            else:
                again = state[ST_REMISS] / max(1.0, state[ST_REREAD])
                share = first + (1.0 - first) * again
                drop_halves += (1.0 - share) * width / 2.0
                drop_sectors += sectors(part) * (1.0 - share)
    glob[hit_stat] += drop_sectors
    return drop_halves, drop_sectors


SECTOR_KEYS = 1 << 62     # fetched_before's keys of single sectors (line * 4 + sector), apart from halves'


@njit(cache=True, nogil=True, _nrt=False)
def _whole(mask):
    """The word marks (8 bits a sector) of every word of ``mask``'s sectors."""
    w = 0
    for b in range(4):
        if mask & (1 << b):
            w |= 0xFF << (8 * b)
    return w


COPY = 1 << 60          # a line's copy in a partition not its own: its key's mark (lines < 2^59)


@njit(cache=True, nogil=True, _nrt=False)
def copy_key(line):
    """The key of ``line``'s copy in the partition that is not its home (its own sets)."""
    return COPY | (line << 1) | 1


@njit(cache=True, nogil=True, _nrt=False)
def line_of(key):
    """The line a key names: itself, or the line a copy holds."""
    return (key ^ COPY) >> 1 if key >= COPY else key


@njit(cache=True, nogil=True, _nrt=False)
def home_partition(line, parts):
    """The L2 partition that takes ``line``'s writes and atomics (addresses hashed over the
    partitions)."""
    h = (line * 0x2545F4914F6CDD1D) & 0xFFFFFFFFFFFF
    return (h >> 40) % parts


@njit(cache=True, nogil=True, _nrt=False)
def key_in(line, p):
    """The key of ``line`` in partition ``p``: the line itself in the first, its copy key in
    the second (the two share the one array of ways, each in its own sets)."""
    return line if p == 0 else copy_key(line)


@njit(cache=True, nogil=True, _nrt=False)
def write_key(line, P):
    """Where writes and atomics to ``line`` go: its home partition's key."""
    parts = int(P[P_L2_PARTS])
    return line if parts <= 1 else key_in(line, home_partition(line, parts))


FAR_HIT = 4             # l2_valid's bits from here on: SMs of a partition hit the line from afar


@njit(cache=True, nogil=True, _nrt=False)
def _l2_read(line, need, m, n_sm, l2_tag, l2_init, l2_valid, l2_dirty, l2_words, l2_stamp, l2_ready, fifo, l2x,
             state, P, glob):
    """An L1 miss of SM ``m`` asking the L2 for ``need``'s sectors of ``line``: the mask of
    sectors that missed (DRAM fills them) and the place whose data the request waits for.

    With two partitions, SM m of ``n_sm`` reads through its own, the SMs numbered in halves
    (l2_sharing.cu: a block that reads again what block b + 1 read misses no more than one
    that reads its own again; block b + SMs/2 misses more). What its partition lacks is
    looked for in the other; what neither has comes from DRAM into its own. The second time
    SMs of a partition hit a line in the other, the line is copied into theirs, and the copy
    takes L2 space like any line (l2_sharing.cu: a random gather from every SM, each line hit
    from both halves many times, keeps about half of the L2's bytes, while a buffer read
    twice, the second time by the same SM or by one of the other half, keeps all of them)."""
    parts = int(P[P_L2_PARTS])
    if parts <= 1:
        return _l2_touch(line, need, False, l2_tag, l2_init, l2_valid, l2_dirty, l2_words, l2_stamp, l2_ready,
                         fifo, l2x, state, P, glob)
    p = m * parts // n_sm
    ways = l2_tag.shape[2]
    near = key_in(line, p)
    sn = set_of(near, l2_tag.shape[1])
    wn = find(l2_tag, l2_init, 0, sn, near)
    if wn >= 0:
        state[ST_LRU_CLOCK] += 1
        l2_stamp[0, sn, wn] = int(state[ST_LRU_CLOCK])
        need = need & ~l2_valid[0, sn, wn]
        if need == 0:
            return 0, sn * ways + wn
    far = key_in(line, 1 - p)
    sf = set_of(far, l2_tag.shape[1])
    wf = find(l2_tag, l2_init, 0, sf, far)
    hit = 0
    if wf >= 0:
        hit = need & l2_valid[0, sf, wf]
    if hit:
        state[ST_LRU_CLOCK] += 1
        l2_stamp[0, sf, wf] = int(state[ST_LRU_CLOCK])
        if l2_valid[0, sf, wf] & (1 << (FAR_HIT + p)):
            _, slot_c = _l2_touch(near, hit, False, l2_tag, l2_init, l2_valid, l2_dirty, l2_words, l2_stamp,
                                  l2_ready, fifo, l2x, state, P, glob)
            l2_ready[0, slot_c // ways, slot_c % ways] = l2_ready[0, sf, wf]
        else:
            l2_valid[0, sf, wf] |= 1 << (FAR_HIT + p)
    rest = need & ~hit
    if rest:
        return _l2_touch(near, rest, False, l2_tag, l2_init, l2_valid, l2_dirty, l2_words, l2_stamp, l2_ready,
                         fifo, l2x, state, P, glob)
    return 0, sf * ways + wf


@njit(cache=True, nogil=True, _nrt=False)
def fetched_before(fetched, key) -> bool:
    """Whether the 64-byte half ``key`` (line * 2 + half) was marked before; marks it. A bit
    per hash of the key in ``fetched`` (a miss taken for a re-read when two keys share a bit:
    rare while the replay reads far fewer halves than the map has bits)."""
    h = (np.uint64(key) * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(38)
    h = h % np.uint64(fetched.size * 64)
    word, bit = h >> np.uint64(6), np.uint64(1) << (h & np.uint64(63))
    was = (fetched[word] & bit) != 0
    fetched[word] |= bit
    return was


@njit(cache=True, nogil=True, _nrt=False)
def _recent_store(l1_store, m, key):
    """The row of SM ``m``'s recent one-sector stores (``l1_store[m]``) that holds ``key``, else
    the one whose acknowledgement came back first (to be written over). (Indices, not views:
    numba counts references on every view made in the machine's loop.)"""
    best = 0
    for r in range(LS_ENTRIES):
        if l1_store[m, r, LS_KEY] == key:
            return r
        if l1_store[m, r, LS_ACK] < l1_store[m, best, LS_ACK]:
            best = r
    return best


@njit(cache=True, nogil=True, _nrt=False)
def global_access(k, m, T, ev, ev_n, ev_ptr, sec, sec_w, atomic, P, H, l1, l2_tag, l2_init, l2_valid,
                   l2_dirty, l2_words, l2_stamp, l2_ready, fifo, l2x, atoms, state, glob, smstat, ibufs, wbuf,
                   fetch, g):
    """A global load, store or atomic of one warp issued at T on SM m: its completion time.
    ``l1``: the SMs' L1s (tags, sets looked at, valid sectors, LRU stamps, when each line's
    data arrives, when the tag stage and the data stage are free); ``atoms``: the atomic
    units' (free, busy) times; ``ibufs``: scratch rows for the lines touched, their sector
    masks, partial writes and the L1 way each missed in; ``fetch[g]``: the issuing warp's DRAM
    fetches still in flight (how many, until when); ``atomic``: the instruction's isa.ATOM_* kind;
    ``l2x``: a sampled replay's table of what its lines stand for (footprint.py), the w of
    each L2 way's line, and the 64-byte halves it has read (``fetched_before``)."""
    fatom = atomic == isa.ATOM_FLOAT
    l1_tag, l1_init, l1_valid, l1_stamp, l1_ready, l1t_free, data_free, l1_store, l1s_free = l1
    lines_buf, masks_buf, partial_buf = ibufs[0], ibufs[1], ibufs[2]
    n = ev_n[ev]
    p0 = ev_ptr[ev]
    # group the sectors into lines
    n_lines = 0
    for q in range(n):
        line = sec[p0 + q] >> 2
        bit = 1 << (sec[p0 + q] & 3)
        f = -1
        for i in range(n_lines):
            if lines_buf[i] == line:
                f = i
                break
        if f < 0:
            lines_buf[n_lines] = line
            masks_buf[n_lines] = bit
            partial_buf[n_lines] = 0
            wbuf[0, n_lines] = 0.0
            wbuf[1, n_lines] = 0.0
            wbuf[2, n_lines] = 0.0
            f = n_lines
            n_lines += 1
        else:
            masks_buf[f] |= bit
        kq = sec_w[p0 + q]
        if k == isa.GLOBAL_ATOM:            # lanes on one word take turns at the atomic unit
            partial_buf[f] |= (kq >> 6) << (8 * (sec[p0 + q] & 3))      # the words touched
            kq &= 63
            if atomic == isa.ATOM_WARP:
                kq = 1                      # the leader's one atomic for the warp's lanes
            per = P[P_ATOM_SAME] if kq > 4 else P[P_ATOM_SPREAD]
            # a float add waits for the adder's result before the next one on its word when
            # the unit's last update was a float add to one of the request's sectors and it is
            # still busy (row 1, chosen in atomics.serve); the lanes of one request on one
            # word take turns at the integer rate (warp_words.py: add_f32 against add_u32, 32
            # lanes a word). The sectors' turns at the integer rate add up, and a float
            # sector's waits overlap the others' turns: the line takes the longer of the two
            # (hot_words.py: every warp's lanes at random over 32-128 words, three or so a word
            # in a sector, float adds as fast as integer ones; 8 or 32 lanes on one word, 2.4x
            # slower)
            per_f = per * P[P_ATOM_SAME_F] / P[P_ATOM_SAME] if fatom else per
            wbuf[0, f] += kq * per
            wbuf[1, f] = max(wbuf[1, f], kq * per_f)
            if kq == 1:
                wbuf[2, f] += 1.0           # sectors of one lane a word (a cold line's go at its rate)
        elif k == isa.GLOBAL_ST:            # stores: which of the sector's 8 words are written
            partial_buf[f] |= (kq & 0xFF) << (8 * (sec[p0 + q] & 3))
    state[ST_HELD_UNTIL] = 0.0          # out: until when the issuing warp is held by full queues
    if n_lines == 0:
        return T
    start = max(T, l1t_free[m])
    # a warp's store to the words of one sector that another warp of the SM stored, its
    # acknowledgement not yet back, waits for it in the SM's queue to the L2, and holds every
    # request behind it but a store of those words right behind it, which goes with it
    # (hot_stores.py: a flag every warp of a sweep raises costs each SM about an L2 round trip
    # a store; flag stores back to back, nothing between them, 26-43 cycles). The queues and
    # caches take a held request at its time here (``start``); it completes ``delay`` later
    one = float(sec[p0] * 256 + (sec_w[p0] & 0xFF)) if k == isa.GLOBAL_ST and n == 1 else -1.0
    if l1_store[m, LS_ENTRIES, LS_PENDING] > start and one == l1_store[m, LS_ENTRIES, LS_PKEY]:
        l1t_free[m] = start + P[P_L1_LINE_CYCLES]
        smstat[m, M_L1T] += P[P_L1_LINE_CYCLES]
        return l1_store[m, _recent_store(l1_store, m, one), LS_ACK]
    delay = 0.0
    if l1_store[m, LS_ENTRIES, LS_HOLD] > start:
        delay = l1_store[m, LS_ENTRIES, LS_HOLD] - start
        l1_store[m, LS_ENTRIES, LS_PENDING] = 0.0
        state[ST_HELD_UNTIL] = start + delay - P[P_QUEUE_ALLOWANCE]     # the warp waits with its request
    banked = k == isa.GLOBAL_LD and P[P_L1_TAG_LINE] > 0.0      # warp_words.py, records
    tag = P[P_L1_TAG_LINE] if banked else P[P_L1_LINE_CYCLES]
    l1t_free[m] = start + n_lines * tag
    smstat[m, M_L1T] += n_lines * tag
    state[ST_NOW] = start
    l1sets = l1_tag.shape[1]
    fold = int(P[P_L1_FOLD])
    # a store ptxas put right behind the warp's store to the same lines merges with it on the
    # way to the L2 (store_merge.py, store_runs.py): requests of at most store_merge_lines
    # lines back to back, of store_merge_lines_near with one instruction between
    # (isa.STORE_NEXT, NEAR). The first store merged into a run costs the L2 and the SM's path
    # to it nothing more; each later one store_merge_share of its own cost (store_runs.py: a
    # thread's 4 or 6 words stored back to back reach the L2 as 1.72 and 2.44 requests' lines
    # a store, against 1.0 for 2 words)
    most = P[P_STORE_MERGE] if atomic == isa.STORE_NEXT else P[P_STORE_MERGE_NEAR] if atomic == isa.STORE_NEAR else 0.0
    merged = (k == isa.GLOBAL_ST and n_lines <= most and fetch[g, 3] == n_lines and fetch[g, 2] == float(lines_buf[0]))
    share = 1.0 if not merged else P[P_STORE_MERGE_SHARE] if fetch[g, 4] > 0.0 else 0.0
    fetch[g, 4] = fetch[g, 4] + 1.0 if merged else 0.0
    fetch[g, 2] = float(lines_buf[0]) if k == isa.GLOBAL_ST else -1.0
    fetch[g, 3] = n_lines if k == isa.GLOBAL_ST else 0
    if k == isa.GLOBAL_ST:
        n_sec = 0
        written = glob[G_DRAM_WRITE]
        for i in range(n_lines):
            mask = masks_buf[i]
            s = l1_set_of(lines_buf[i], l1sets, fold)
            w = find(l1_tag, l1_init, m, s, lines_buf[i])
            if w >= 0:
                l1_valid[m, s, w] |= mask
            nb = sectors(mask)
            n_sec += nb
            glob[G_L2_WRITE] += nb * share
            _l2_touch(write_key(lines_buf[i], P), mask, True, l2_tag, l2_init, l2_valid, l2_dirty, l2_words, l2_stamp, l2_ready, fifo,
                      l2x, state, P, glob, partial_buf[i])
        busy = share * (n_lines * P[P_L2_WRITE_LINE] + n_sec * P[P_L2_WRITE_SECTOR])
        q = l2_busy(busy, start + P[P_L1_LAT], state, glob, l2x[4])
        q = max(q, writeback_wait(written, start + P[P_L1_LAT], state, glob))
        # A stored line first takes l1_data_store_line_cycles of the L1's data stage, in turn
        # with the lines loads bring back, then leaves the SM for the L2 on the SM's own path,
        # taking l1_store_line_cycles and each of its sectors l1_store_sector_cycles more, a
        # cost beside the L2's (l1_store_data.cu, 16 warps on each of 16 SMs: stores of 32
        # one-sector lines 2.2 cycles a line, of one whole line 4.3; beside loads of 32 L1
        # lines 2.8 a line pair, the loads alone 1.0). A warp whose store waits there too long
        # is held, as for the L2's queue.
        path = 0.0
        if P[P_STORE_LINE] > 0.0 and share > 0.0:
            s_path = start
            if P[P_STORE_DATA] > 0.0:
                s_path = max(start, data_free[m])
                data_free[m] = s_path + share * n_lines * P[P_STORE_DATA]
            s_path = max(s_path, l1s_free[m])
            path = s_path - start
            l1s_free[m] = s_path + share * (n_lines * P[P_STORE_LINE] + n_sec * P[P_STORE_SECTOR])
        state[ST_HELD_UNTIL] = max(state[ST_HELD_UNTIL], T + max(path, q) - P[P_QUEUE_ALLOWANCE])
        ack = start + delay + path + q + P[P_L2_LAT]       # when the L2 acknowledges the store
        if one >= 0.0:
            e = _recent_store(l1_store, m, one)
            if (l1_store[m, e, LS_KEY] == one and l1_store[m, e, LS_ACK] > start + delay
                    and l1_store[m, e, LS_WARP] != state[ST_WARP]):
                send = l1_store[m, e, LS_ACK]            # when the last is acknowledged
                l1_store[m, LS_ENTRIES, LS_PENDING] = send
                l1_store[m, LS_ENTRIES, LS_HOLD] = send
                l1_store[m, LS_ENTRIES, LS_PKEY] = one
                ack = send + q + P[P_L2_LAT]
            l1_store[m, e, LS_KEY] = one
            l1_store[m, e, LS_ACK] = ack
            l1_store[m, e, LS_WARP] = state[ST_WARP]
        return ack
    if k == isa.GLOBAL_ATOM:
        done = start
        t_arr = start + P[P_L1_LAT]
        written = glob[G_DRAM_WRITE]
        same = P[P_ATOM_SAME_F] if fatom else P[P_ATOM_SAME]
        for i in range(n_lines):
            mask = masks_buf[i]
            nb = sectors(mask)
            glob[G_L2_ATOM] += nb
            q2 = l2_queue(nb * 32.0, P[P_L2_READ_BPC], t_arr, state, glob, l2x[4])
            key = write_key(lines_buf[i], P)
            missed, _ = _l2_touch(key, mask, False, l2_tag, l2_init, l2_valid, l2_dirty, l2_words, l2_stamp, l2_ready,
                                  fifo, l2x, state, P, glob, 0, False)
            extra = 0.0
            glob[G_L2_ATOM_HIT] += nb - sectors(missed)
            state[ST_REREAD] += nb - sectors(missed)
            if missed:
                # an atomic that misses reads only its own sectors (warp_words.py: a warp's
                # atomics on one word read 32 bytes a line from DRAM, not 64); in a sampled
                # replay, a first read stands for the GPU's first reads and its reads again, as
                # a load's does (below)
                n_read = float(sectors(missed))
                if P[P_SAMPLE] > 1.0:
                    n_read -= _sampled_share(lines_buf[i], missed, l2x, P, state, glob, G_L2_ATOM_HIT, True)[1]
                mates = page_mates(lines_buf, masks_buf, n_lines, i, P)
                qd = dram_read(n_read * 32.0, dram_cost(n_read * 32.0, sectors(missed) * 32.0, mates, P),
                                t_arr + q2, P, state, glob)
                extra = qd + P[P_DRAM_LAT] - P[P_L2_LAT]
            # the update leaves its sectors dirty, written back like a store's (whole sectors)
            _l2_touch(key, mask, True, l2_tag, l2_init, l2_valid, l2_dirty, l2_words, l2_stamp, l2_ready, fifo,
                      l2x, state, P, glob, _whole(mask))
            a1 = t_arr + q2 + extra
            a1 = max(a1, t_arr + writeback_wait(written, t_arr, state, glob))   # it made room by writing back
            written = glob[G_DRAM_WRITE]
            # with a sample of the SMs, each line's update stands for P_SAMPLE updates; of them,
            # those on this very line take its unit (all of them for a line every block
            # updates), and the others, on the w - 1 other lines the line stands for
            # (footprint.py), are spread over the units (warp_words.py: 32 warps a line
            # replayed on a sample of consecutive SMs otherwise queued 3x at one unit)
            here = P[P_SAMPLE]
            if here > 1.0:
                here /= line_weight(l2x[0], l2x[1], lines_buf[i], P[P_SAMPLE])
            a0, service = atomics.serve(lines_buf[i], nb, partial_buf[i] if fatom else 0, wbuf[0, i], wbuf[1, i],
                                        wbuf[2, i], a1, here, P, atoms)
            state[ST_HELD_UNTIL] = max(state[ST_HELD_UNTIL], T + (a0 - t_arr - extra) - P[P_QUEUE_ALLOWANCE])
            glob[G_ATOM_BUSY] += service * P[P_SAMPLE]
            glob[G_ATOM_OPS] += nb
            fin = a0 + service + P[P_G_ATOM_LAT] - P[P_L1_LAT] - same
            if fin > done:
                done = fin
        return done + delay
    # loads
    l1_hit_lines = 0
    pending = 0.0            # a hit on a line whose data is still on its way waits for it
    n_missed = 0
    n_l2_missed = 0
    k_l2 = 0
    k_dram = 0
    worst_q2 = 0.0
    worst_qd = 0.0
    t_l2 = start + P[P_L1_LAT]
    merge_w = P[P_L2_MERGE]
    n_sent = 0
    for i in range(n_lines):
        line = lines_buf[i]
        mask = masks_buf[i]
        s = l1_set_of(line, l1sets, fold)
        w = find(l1_tag, l1_init, m, s, line)
        state[ST_LRU_CLOCK] += 1
        glob[G_L1_SECTORS] += sectors(mask)
        need = mask
        if w >= 0:
            need = mask & ~l1_valid[m, s, w]
            l1_stamp[m, s, w] = int(state[ST_LRU_CLOCK])
        else:
            w = victim(l1_tag, l1_stamp, m, s)
            l1_tag[m, s, w] = line
            l1_valid[m, s, w] = 0
            l1_stamp[m, s, w] = int(state[ST_LRU_CLOCK])
        glob[G_L1_HITS] += sectors(mask & ~need)
        if need == 0:
            l1_hit_lines += 1
            if l1_ready[m, s, w] > pending:
                pending = l1_ready[m, s, w]
            continue
        ibufs[3, n_missed] = s * l1_tag.shape[2] + w
        n_missed += 1
        if merge_w > 0.0:
            j = merge_slot(line, l2x[7].shape[0])
            if merges(l2x[7], j, line, need, t_l2, merge_w, P[P_L2_MERGE_MOST]):
                # another SM's read of the line reached the L2 within the window: the L2 serves
                # both at once, so this one takes neither its queue nor a count of its sectors
                # and its data comes back with the other's
                l2x[7][j, 4] += 1.0
                if l2x[7][j, 3] > pending:
                    pending = l2x[7][j, 3]
                k_l2 += 1
                l1_valid[m, s, w] |= need
                continue
            l2x[7][j, 0] = float(line)
            l2x[7][j, 1] = t_l2
            l2x[7][j, 2] = float(need)
            l2x[7][j, 3] = 1e300
            l2x[7][j, 4] = 1.0
            ibufs[5, n_sent] = j
            n_sent += 1
        nn = sectors(need)
        glob[G_L2_READ] += nn
        missed, slot2 = _l2_read(line, need, m, l1_tag.shape[0], l2_tag, l2_init, l2_valid, l2_dirty, l2_words, l2_stamp,
                                 l2_ready, fifo, l2x, state, P, glob)
        hits = nn - sectors(missed)
        glob[G_L2_READ_HIT] += hits
        state[ST_REREAD] += hits                 # (sectors read again: fetched_before's estimate)
        ready = l2_ready[0, slot2 // l2_tag.shape[2], slot2 % l2_tag.shape[2]]
        if hits and ready > pending:
            pending = ready                  # an L2 hit on a line another SM's miss is still filling
        # hits are read out of the L2 (waiting for its queue); a miss goes on to DRAM, and its
        # fill is written into the L2 after, taking the queue for as long as DRAM takes to
        # deliver it: the stores and hits behind it wait
        q2 = l2_busy(hit_busy(hits, P), t_l2, state, glob, l2x[4]) if hits else 0.0
        if q2 > worst_q2:
            worst_q2 = q2
        if missed:
            pairs = halves(missed)
            fetches = float(pairs)
            if P[P_SAMPLE] > 1.0:
                # the share standing for the GPU's reads again hits: it takes the L2's queue
                # as a hit does (atomic_lines.cu's ld_rand over 2^16 lines, every lane its own
                # line of an 8 MB table: a sample of 16 SMs served 133 one-sector requests a
                # cycle without this, the replay of every SM 89, the H200 86)
                drop, drop_sec = _sampled_share(line, missed, l2x, P, state, glob, G_L2_READ_HIT)
                fetches -= drop
                if drop_sec > 0.0:
                    nm = sectors(missed)
                    l2_busy(drop_sec / nm * hit_busy(nm, P), t_l2, state, glob, l2x[4])
            burst = fetches * P[P_DRAM_FETCH]
            fill = l2_take(burst / P[P_DRAM_BPC], t_l2, l2x[4])
            state[ST_L2_FREE] = max(state[ST_L2_FREE], fill + burst / P[P_DRAM_BPC])
            mates = page_mates(lines_buf, masks_buf, n_lines, i, P) if pairs == 1 else 1
            qd = dram_read(burst, dram_cost(burst, pairs * P[P_DRAM_FETCH], mates, P),
                            t_l2 + q2 + P[P_L2_LAT] * 0.5, P, state, glob)
            if qd > worst_qd:
                worst_qd = qd
            k_dram += pairs                  # the tail was measured per 64-byte fetch
            ibufs[4, n_l2_missed] = slot2
            n_l2_missed += 1
        else:
            k_l2 += 1
        l1_valid[m, s, w] |= need
    done = start + P[P_L1_LAT] + (n_lines - 1) * P[P_L1_LINE_STEP]
    if k_l2 + k_dram > 0:
        kk = k_l2 + k_dram
        t = start + worst_q2 + P[P_L2_LAT] + P[P_L2_TAIL] * (H[min(kk, 32)] - 1.0)
        if t > done:
            done = t
    if k_dram > 0:
        # the warp waits for the slowest of all its fetches in flight, this request's and
        # those of its earlier loads still out (micro7.cu: four one-line loads a step take
        # longer than one four-line load)
        if T < fetch[g, 1]:
            k_dram += int(fetch[g, 0])
        else:
            fetch[g, 1] = 0.0
        t = start + worst_q2 + worst_qd + P[P_DRAM_LAT] + P[P_DRAM_TAIL] * (H[min(k_dram, 32)] - 1.0)
        if t > done:
            done = t
        fetch[g, 0] = k_dram
        fetch[g, 1] = max(fetch[g, 1], done)
    if pending > done:
        done = pending
    for i in range(n_missed):                 # the lines this request fills arrive with it
        sw = ibufs[3, i]
        l1_ready[m, sw // l1_tag.shape[2], sw % l1_tag.shape[2]] = done
    for i in range(n_l2_missed):              # ... into the L2 too, for other SMs' hits on them
        sw = ibufs[4, i]
        l2_ready[0, sw // l2_tag.shape[2], sw % l2_tag.shape[2]] = done
    for i in range(n_sent):                   # ... and to the reads merged with them
        l2x[7][ibufs[5, i], 3] = done
    # the lines go back to the warp through the L1's data stage, one a cycle, taking turns
    # with shared-memory wavefronts (micro9.cu); where the architecture gives the tag stage's
    # own rate, the data stage takes a wavefront per word that shares a bank with another
    # (warp_words.py: lanes 36 bytes apart read 9 lines in half the time that lanes 32 bytes
    # apart read 8, eight words to a bank)
    s0 = max(T, data_free[m])
    data_free[m] = s0 + (sec_w[p0] * P[P_L1_LINE_CYCLES] if banked else n_lines)
    return done + (s0 - T) + delay


def memory_arrays(n_sm: int, l1_lines: int, l1_ways: int, l2_lines: int, l2_ways: int,
                  dirty_sectors: float) -> tuple:
    """The caches' arrays ``run`` works in (``mem``): per SM an L1 of ``l1_lines`` lines
    (tags, sets looked at, valid sectors, LRU stamps, when each line's data arrives), the L2
    (tags, sets looked at, valid and dirty sectors, written words, LRU stamps), the queue
    of dirty lines and the ledger of the L2 queue's work by time (``l2_take``: 2^16 spans, a
    ring). ``run`` clears what it needs, so a caller may reuse them."""
    l1w = max(1, min(l1_ways, l1_lines))
    l1_sets = max(1, l1_lines // l1w)
    l2w = max(1, min(l2_ways, l2_lines))
    l2_sets = max(1, l2_lines // l2w)
    l1, l2 = (n_sm, l1_sets, l1w), (1, l2_sets, l2w)
    return (np.empty(l1, np.int64), np.zeros(l1[:2], np.uint8), np.empty(l1, np.uint8), np.empty(l1, np.int64),
            np.zeros(l1, np.float64), np.empty(l2, np.int64), np.zeros(l2[:2], np.uint8), np.empty(l2, np.uint8),
            np.empty(l2, np.uint8), np.empty(l2, np.int64), np.empty(l2, np.int64), np.zeros(l2, np.float64),
            np.empty(max(1024, 2 * int(dirty_sectors)), np.int64), np.zeros((2, 1 << 16), np.float64))
