"""The machine: every SM of the GPU running the recorded warps, event by event, compiled.

Each SM holds as many blocks (CTAs) as occupancy allows; their warps sit in slots spread
over the SM's four schedulers. A scheduler issues, cycle by cycle, one instruction of one
of its warps: the warp whose next instruction is ready first (its source registers are
ready and its pipe is free), the warp that issued last winning ties (greedy-then-oldest).
An instruction occupies the scheduler's dispatch for its issue slots and its pipe for
slots / pipe rate. Results are ready a latency later: a fixed one for arithmetic, and for
memory what the memory system answers at the moment of issue:

see memsys.py.

Barriers release a block's warps when the last one arrives; a finished block frees its
slot and the block scheduler (one block every few cycles for the whole GPU) starts the next
block of the grid there. Times are in SM cycles from the first block's dispatch.

Every waiting cycle of a warp is charged to a stall reason and an instruction: waiting on a
register is charged to the instruction that produces it (the cause), a busy pipe or another
warp taking the scheduler to the waiting instruction, a barrier to the barrier.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from . import isa
from .indices import (G_ATOM_HOT, M_CTAS, M_FIRST, M_ISSUE, M_LAST, M_LSU, M_PIPE0, M_WARP_CYCLES,
                      P_ATOM_UNITS, P_BAR_BASE, P_BAR_WARP, P_DISPATCH, P_RETIRE, P_SH_ATOM_LAT,
                      P_SH_ATOM_SAME_LAT, P_SH_ATOM_SAME_TPUT, P_SH_FATOM_ROUND, P_SH_FATOM_SASS,
                      P_SH_LAT, P_SH_MIN, P_STORE_RETIRE, S_BARRIER, S_LG_THROTTLE, S_LONG,
                      S_NOT_SELECTED, S_SHORT, S_THROTTLE, S_WAIT)
from .memsys import global_access
from .private import (WORTH, is_private, private_work, run_ahead_waiting, run_alone, run_private,
                      tables)
from .scheduling import INF, heap_pop, heap_push, mark_slots, pick_warp, when_ready

RUN_AHEAD = 16.0     # cycles a scheduler may run ahead of the earliest pending event
SKIP = 64            # issues a scheduler makes here after a short run in private.py's loop
# ... unless what it issues touches nothing another scheduler shares (see ``run``)
SHFL_PIPE = isa.PIPES.index("shfl")


@njit(cache=True, nogil=True)
def _place(c, m, t, S, warps_per_cta, entry_ptr, entry_step, step_block, blk_first, cta_slot,
           cta_live, cta_arrived, cta_bar_t, cta_where, sl_warp, sl_e, sl_end, sl_bend, sl_ins,
           sl_own, sl_bar, sl_cta, sl_start, reg_ready, reg_prod, smstat, sl_src, sl_sprod, blk_len,
           sl_c0, sl_pp, pipe):
    """Start block ``c`` on SM ``m`` at time ``t``; return how many warps it has."""
    bpsm = cta_slot.shape[1]
    SQ = (S + 3) // 4
    q = 0
    while cta_slot[m, q] != -1:
        q += 1
    cta_slot[m, q] = c
    cta_where[c] = m * bpsm + q
    cta_arrived[c] = 0
    cta_bar_t[c] = 0.0
    live = 0
    for w in range(warps_per_cta):
        sl = q * warps_per_cta + w
        g = (m * 4 + sl % 4) * SQ + sl // 4
        wid = c * warps_per_cta + w
        e0 = entry_ptr[wid]
        e1 = entry_ptr[wid + 1]
        if e0 == e1:
            continue
        live += 1
        sl_warp[g] = wid
        sl_e[g] = e0
        sl_end[g] = e1
        b0 = step_block[entry_step[e0]]
        sl_ins[g] = blk_first[b0]
        sl_bend[g] = blk_first[b0] + blk_len[b0]
        sl_own[g] = t
        sl_bar[g] = 0
        sl_cta[g] = c
        sl_start[g] = t
        sl_src[g] = t
        sl_c0[g] = t
        sl_pp[g] = pipe[sl_ins[g]]
        sl_sprod[g] = -1
        reg_ready[g, :] = t
        reg_prod[g, :] = -1
        reg_ready[g, reg_ready.shape[1] - 1] = 0.0    # the register that is always ready
    cta_live[c] = live
    if smstat[m, M_CTAS] == 0:
        smstat[m, M_FIRST] = t
    smstat[m, M_CTAS] += 1
    return live


@njit(cache=True, nogil=True)
def run(kind, pipe, sass, lat, bpen, src_ptr, src, dst_ptr, dst, mem_slot, fatom, blk_first, blk_len,
        entry_ptr, entry_step, entry_k, step_block, step_nrun, step_ev, ev_n, ev_ptr, ev_same,
        sec, sec_w, n_ctas, warps_per_cta, blocks_per_sm, n_sm, n_regs, P, pipe_interval,
        mem, stalls, cta_start, cta_done, cta_sm, smstat, glob):
    """Simulate ``n_ctas`` blocks; fills ``stalls`` [instr, reason], ``cta_start``, ``cta_done``
    and ``cta_sm`` [block], ``smstat`` [SM, stat] and ``glob`` [stat]. Returns the time the
    kernel ends."""
    S = blocks_per_sm * warps_per_cta          # warp slots per SM
    SQ = (S + 3) // 4                          # ... per scheduler (slot s is on scheduler s % 4)
    G = n_sm * 4 * SQ
    n_sp = n_sm * 4
    n_pipes = pipe_interval.size
    # warp slots
    sl_warp = np.full(G, -1, np.int64)
    sl_e = np.zeros(G, np.int64)
    sl_end = np.zeros(G, np.int64)
    sl_bend = np.zeros(G, np.int64)            # the end of the current block's instructions
    # the stall a wait on each instruction's result counts as
    stall_cls = np.full(kind.size, S_WAIT, np.int8)
    private = np.ones(kind.size, np.bool_)     # touches only its scheduler's state
    for i in range(kind.size):
        private[i] = is_private(kind[i])
        if kind[i] == isa.GLOBAL_LD or kind[i] == isa.GLOBAL_ATOM:
            stall_cls[i] = S_LONG
        elif kind[i] == isa.SHARED_LD or kind[i] == isa.SHARED_ATOM or pipe[i] == SHFL_PIPE:
            stall_cls[i] = S_SHORT
    sl_ins = np.zeros(G, np.int64)
    sl_own = np.zeros(G, np.float64)
    sl_bar = np.zeros(G, np.int8)
    sl_cta = np.zeros(G, np.int64)
    sl_start = np.zeros(G, np.float64)
    sl_barins = np.zeros(G, np.int64)          # the barrier a waiting warp is at
    sl_src = np.zeros(G, np.float64)           # when the next instruction's sources are ready
    sl_sprod = np.full(G, -1, np.int64)        # ... and which instruction produces the last one
    sl_store = np.zeros(G, np.float64)         # when the warp's stores and atomics are acknowledged
    sl_fetch = np.zeros((G, 2), np.float64)    # the warp's DRAM fetches in flight: (how many, until)
    # what the scheduler's pick reads, kept up to date so that its pass over the warps is short:
    # max(sl_own, sl_src), INF for an empty slot or a warp at a barrier; the next instruction's pipe
    sl_c0 = np.full(G, INF, np.float64)
    sl_pp = np.zeros(G, np.int64)
    nr = max(1, n_regs)
    # a slot's rows are set when a block starts; the last column is a register that is always
    # ready (the private run pads sources with it)
    reg_ready = np.empty((G, nr + 1), np.float64)
    reg_prod = np.empty((G, nr + 1), np.int32)      # the instruction that produces each register
    issue, srcs, dest, e_first, e_end = tables(kind, src_ptr, src, dst_ptr, dst, blk_first, blk_len,
                                               entry_step, step_block, nr)
    # schedulers, SMs, blocks
    sp_free = np.zeros(n_sp, np.float64)
    pipe_free = np.zeros((n_sp, n_pipes + 1), np.float64)
    pipe_free[:, n_pipes] = -INF                # no pipe: never what a warp waits for
    sp_order = np.zeros((n_sp, SQ), np.int64)   # per scheduler: its slots, oldest warp first
    sp_slots = np.zeros(n_sp, np.int64)         # per scheduler: its slots [0, n) have held warps
    sp_ver = np.zeros(n_sp, np.int64)
    sp_last = np.full(n_sp, -1, np.int64)
    sp_next = np.full(n_sp, INF, np.float64)   # the time of each scheduler's pending event
    sp_wait = np.zeros(n_sp, np.int64)         # its warps waiting at a barrier
    sp_skip = np.zeros(n_sp, np.int64)         # its issues before it tries private.py's loop again
    lsu_free = np.zeros(n_sm, np.float64)     # the L1's data stage: shared wavefronts, loaded lines
    l1t_free = np.zeros(n_sm, np.float64)     # the L1's tag stage: global lines
    cta_slot = np.full((n_sm, blocks_per_sm), -1, np.int64)
    cta_live = np.zeros(n_ctas, np.int64)
    cta_arrived = np.zeros(n_ctas, np.int64)
    cta_bar_t = np.zeros(n_ctas, np.float64)
    cta_where = np.zeros(n_ctas, np.int64)
    cta_free = np.zeros(n_ctas, np.float64)    # when the block's last writes have left the SM
    # memory system: the caches' arrays come from ``memory_arrays``, reused from launch to
    # launch; a set's ways are emptied when first looked at (find), a line's valid, dirty and
    # written marks when it is allocated, and its ready time is written by the request that
    # allocates it before any hit reads it, so only the sets' first-look marks are cleared here
    l1_tag, l1_init, l1_valid, l1_stamp, l1_ready, l2_tag, l2_init, l2_valid, l2_dirty, l2_words, l2_stamp, fifo = mem
    l1_init[:] = 0
    l2_init[:] = 0
    atom_free = np.zeros(max(1, int(P[P_ATOM_UNITS])), np.float64)
    atom_busy = np.zeros(atom_free.size, np.float64)
    # state: 0 L2 queue free, 1 DRAM queue free, 2 the issuing warp held until, 3 now,
    #        4 LRU clock, 5 dirty sectors, 6 fifo head, 7 fifo tail, 8 atomic units' total rate,
    #        9 DRAM read use (busy per cycle, recent), 10 its time, 11 DRAM write use (recent)
    state = np.zeros(12, np.float64)
    ibufs = np.zeros((4, 32), np.int64)       # lines, sector masks, partial writes, L1 ways of an access
    wbuf = np.zeros(32, np.float64)
    H = np.zeros(33, np.float64)
    for k in range(1, 33):
        H[k] = H[k - 1] + 1.0 / k
    # the event heap: (time, scheduler, version)
    hk = np.empty(16 * n_sp + 64, np.float64)
    hv = np.empty(16 * n_sp + 64, np.int64)
    hn = np.empty(16 * n_sp + 64, np.int64)
    hsize = 0
    # first wave: one block per SM per round, as long as slots and blocks last
    next_cta = 0
    launcher = np.zeros(n_sm, np.float64)      # an SM starts one block at a time
    for rnd in range(blocks_per_sm):
        for m in range(n_sm):
            if next_cta >= n_ctas:
                break
            t0 = launcher[m] + P[P_DISPATCH]
            launcher[m] = t0
            cta_start[next_cta] = t0
            cta_sm[next_cta] = m
            _place(next_cta, m, t0, S, warps_per_cta, entry_ptr, entry_step, step_block,
                   blk_first, cta_slot, cta_live, cta_arrived, cta_bar_t, cta_where, sl_warp, sl_e,
                   sl_end, sl_bend, sl_ins, sl_own, sl_bar, sl_cta, sl_start, reg_ready, reg_prod,
                   smstat, sl_src, sl_sprod, blk_len, sl_c0, sl_pp, pipe)
            mark_slots(cta_where[next_cta] % blocks_per_sm, m, warps_per_cta, sp_slots, sl_warp, SQ, sp_order)
            for u in range(4):
                if t0 < sp_next[m * 4 + u]:
                    sp_ver[m * 4 + u] += 1
                    sp_next[m * 4 + u] = t0
                    hsize = heap_push(hk, hv, hn, hsize, t0, m * 4 + u, sp_ver[m * 4 + u], sp_ver)
            next_cta += 1
    end_time = 0.0
    drain = 0.0
    # private runs done ahead (private.py), taken when the scheduler's event comes: the last
    # block is launched here or in the loop below
    ahead = np.zeros(n_sp, np.int8)
    ahead_t = np.zeros(n_sp, np.float64)
    ahead_greedy = np.zeros(n_sp, np.int64)
    ahead_idle = np.zeros(n_sp, np.bool_)
    if next_cta >= n_ctas:
        run_ahead_waiting(
            sp_next, sp_wait, ahead_t, ahead_greedy, ahead_idle, ahead, stalls, smstat, SQ, n_pipes,
            kind, pipe, sass, lat, bpen, src_ptr, src, dst_ptr, dst, issue, srcs, dest, stall_cls,
            e_first, e_end, sl_e, sl_end, sl_bend, sl_ins, sl_own, sl_src, sl_sprod, sl_c0, sl_pp,
            reg_ready, reg_prod, pipe_free, pipe_interval, sp_free, sp_last, sp_slots, sp_order)
    while hsize > 0:
        t, sp, ver, hsize = heap_pop(hk, hv, hn, hsize)
        if ver != sp_ver[sp]:
            continue
        sp_next[sp] = INF
        m = sp // 4
        # the scheduler issues, picking among its warps each time, while it stays within a few
        # cycles of the earliest pending event of the others; then it goes back to the queue.
        # Greedy-then-oldest: the warp that issued last goes on, without a new look at the
        # others, while it is ready as soon as the scheduler is (it would win that look)
        greedy = -1
        while True:
            if ahead[sp]:
                ahead[sp] = 0
                t, greedy, idle = ahead_t[sp], ahead_greedy[sp], ahead_idle[sp]
                if idle:
                    break
            # Once nothing outside the scheduler can change what it issues (no block is left
            # to launch, none of its warps waits at a barrier), the warp it picks next, if at
            # an instruction that touches nothing shared with more such ahead of it (a call
            # costs a few issues), goes on in private.py's tight loop, which takes the same
            # pick (from the same greedy warp) and issues while it can
            alone = next_cta >= n_ctas and sp_wait[sp] == 0
            greedy0 = greedy
            picked = greedy < 0
            if greedy >= 0:
                g = greedy
                T = max(sp_free[sp], t)
                # still ready when the scheduler is: it wins again (greedy); else everyone looks
                if when_ready(sp, g, sl_c0, sl_pp, pipe_free) > T or (
                        T > t and hsize > 0 and T > hk[0] + RUN_AHEAD and not (alone and private[sl_ins[g]])):
                    greedy = -1
                    picked = True
            if picked:
                # one pass over the scheduler's warps: when each could issue next (c), the
                # earliest, and of those ready by the time the scheduler is free, the one that
                # issued last, else the oldest
                base = max(sp_free[sp], t)
                min1_c, min1_g, best = pick_warp(sp, SQ, sp_slots[sp], base, sl_c0, sl_pp, pipe_free,
                                             sp_last[sp], sp_order)
                if min1_g < 0:
                    break                  # nothing to run: a wake-up will queue the scheduler
                if best < 0:               # nobody ready yet: the earliest goes, when it can
                    best = min1_g
                T = max(min1_c, base)
                g = best
            if alone and sp_skip[sp] == 0 and run_alone(issue, sl_ins[g], sl_e[g], sl_end[g]) and private_work(
                    g, sl_ins, sl_e, sl_end, e_first, e_end, issue, WORTH) >= WORTH:
                t, greedy, idle, n_run = run_private(
                    sp, m, t, greedy0, SQ, n_pipes, kind, pipe, sass, lat, bpen, src_ptr, src,
                    dst_ptr, dst, issue, srcs, dest, stall_cls, e_first, e_end, sl_e, sl_end,
                    sl_bend, sl_ins, sl_own, sl_src, sl_sprod, sl_c0, sl_pp, reg_ready, reg_prod,
                    pipe_free, pipe_interval, sp_free, sp_last, sp_slots, sp_order, stalls, smstat)
                if n_run < WORTH:          # other warps cut it short: not worth a call for a while
                    sp_skip[sp] = SKIP
                if idle:
                    break
                continue
            if picked:
                # Past the others' earliest event by more than RUN_AHEAD, the scheduler goes
                # back to the queue, so that what the schedulers share (the memory system, the
                # LSU, barriers, the block launcher) sees requests in about the order of their
                # times. An instruction that touches none of it (ALU, branch) goes on at once,
                # as long as no other scheduler can still hand this one a warp: no block is
                # left to launch and none of its warps waits at a barrier. Shared requests keep
                # their RUN_AHEAD window; only the order in which they are looked at within
                # it moves (the compute-bound fractal spends a quarter less time here).
                if T > t and hsize > 0 and T > hk[0] + RUN_AHEAD and not (alone and private[sl_ins[best]]):
                    sp_ver[sp] += 1
                    sp_next[sp] = T
                    hsize = heap_push(hk, hv, hn, hsize, T, sp, sp_ver[sp], sp_ver)
                    break
            t = T
            if sp_skip[sp] > 0:
                sp_skip[sp] -= 1
            # ---- issue the next instruction of warp ``best`` at T -------------------------------
            sp_last[sp] = g
            ins = sl_ins[g]
            k = kind[ins]
            # stall accounting: [own, dep] -> producer's reason; [dep, pipe] throttle; rest not selected
            own = sl_own[g]
            dep = own
            prod = -1
            pcls = S_WAIT
            if sl_src[g] > own:
                dep = sl_src[g]
                prod = sl_sprod[g]
                if prod >= 0:
                    pcls = stall_cls[prod]
            if dep > own:
                stalls[prod if prod >= 0 else ins, pcls] += dep - own
            pp = pipe[ins]
            pf = pipe_free[sp, pp] if pp < n_pipes else 0.0
            if pf > dep:
                stalls[ins, S_THROTTLE] += pf - dep
                dep = pf
            if T > dep:
                stalls[ins, S_NOT_SELECTED] += T - dep
            e = sl_e[g]
            step = entry_step[e]
            slots = sass[ins]
            done = T + lat[ins]
            held = 0.0
            if k == isa.SHARED_LD or k == isa.SHARED_ST or k == isa.SHARED_ATOM:
                ev = step_ev[step] + mem_slot[ins] * step_nrun[step] + entry_k[e]
                wave = ev_n[ev]
                service = max(float(wave), P[P_SH_MIN])
                extra_lat = 0.0
                if k == isa.SHARED_ATOM:
                    same = ev_same[ev]
                    if fatom[ins]:
                        slots = P[P_SH_FATOM_SASS] * same + 4.0
                        service = 2.0 * same
                        extra_lat = P[P_SH_FATOM_ROUND] * same + 8.0 - P[P_SH_ATOM_LAT]
                    else:
                        service += (same - 1) * P[P_SH_ATOM_SAME_TPUT]
                        extra_lat = (same - 1) * P[P_SH_ATOM_SAME_LAT]
                s0 = max(T, lsu_free[m])
                lsu_free[m] = s0 + service
                smstat[m, M_LSU] += service
                base = P[P_SH_ATOM_LAT] if k == isa.SHARED_ATOM else P[P_SH_LAT]
                done = s0 + base + (wave - 1) + extra_lat
            elif k == isa.GLOBAL_LD or k == isa.GLOBAL_ST or k == isa.GLOBAL_ATOM:
                ev = step_ev[step] + mem_slot[ins] * step_nrun[step] + entry_k[e]
                done = global_access(k, m, T, ev, ev_n, ev_ptr, sec, sec_w, fatom[ins], P, H,
                                      (l1_tag, l1_init, l1_valid, l1_stamp, l1_ready, l1t_free, lsu_free),
                                      l2_tag, l2_init, l2_valid, l2_dirty, l2_words, l2_stamp, fifo,
                                      (atom_free, atom_busy), state, glob, smstat, ibufs, wbuf, sl_fetch[g])
                held = state[2]
                if k != isa.GLOBAL_LD:
                    if done > sl_store[g]:
                        sl_store[g] = done
                    if T + P[P_STORE_RETIRE] > cta_free[sl_cta[g]]:
                        cta_free[sl_cta[g]] = T + P[P_STORE_RETIRE]
            elif pp < n_pipes:
                pipe_free[sp, pp] = T + slots * pipe_interval[pp]
                smstat[m, M_PIPE0 + pp] += slots * pipe_interval[pp]
            sp_free[sp] = T + slots
            smstat[m, M_ISSUE] += slots
            for p in range(dst_ptr[ins], dst_ptr[ins + 1]):
                reg_ready[g, dst[p]] = done
                reg_prod[g, dst[p]] = ins
            own = T + slots
            if bpen[ins] > 0.0:          # a conditional branch resolves before the next fetch
                own = T + bpen[ins]
            if held > own:           # a full memory queue holds the warp
                stalls[ins, S_LG_THROTTLE] += held - own
                own = held
            if k == isa.BARRIER:
                sl_bar[g] = 1
                sp_wait[sp] += 1
                sl_barins[g] = ins
                c = sl_cta[g]
                cta_arrived[c] += 1
                if own > cta_bar_t[c]:
                    cta_bar_t[c] = own
            # ---- advance the warp past this and any free instructions ---------------------------
            exited = False
            nxt = sl_ins[g]
            while True:
                nxt += 1
                if nxt == sl_bend[g]:            # the block is done: the warp's next block
                    sl_e[g] += 1
                    if sl_e[g] >= sl_end[g]:
                        exited = True
                        break
                    b = step_block[entry_step[sl_e[g]]]
                    nxt = blk_first[b]
                    sl_bend[g] = nxt + blk_len[b]
                if kind[nxt] != isa.FREE:
                    break
                ready = own
                fp = -1
                for p in range(src_ptr[nxt], src_ptr[nxt + 1]):
                    r = reg_ready[g, src[p]]
                    if r > ready:
                        ready = r
                        fp = reg_prod[g, src[p]]
                for p in range(dst_ptr[nxt], dst_ptr[nxt + 1]):
                    reg_ready[g, dst[p]] = ready
                    reg_prod[g, dst[p]] = fp
            sl_ins[g] = nxt
            sl_own[g] = own
            if not exited:
                ready = 0.0
                sl_sprod[g] = -1
                for p in range(src_ptr[nxt], src_ptr[nxt + 1]):
                    r = reg_ready[g, src[p]]
                    if r > ready:
                        ready = r
                        sl_sprod[g] = reg_prod[g, src[p]]
                sl_src[g] = ready
            c = sl_cta[g]
            if exited:
                if sl_store[g] > drain:       # the kernel ends when its writes are applied
                    drain = sl_store[g]
                sl_store[g] = 0.0
                sl_fetch[g, 0] = 0.0
                sl_fetch[g, 1] = 0.0
                sl_warp[g] = -1
                smstat[m, M_WARP_CYCLES] += own - sl_start[g]
                cta_live[c] -= 1
                if own > end_time:
                    end_time = own
            if not exited:
                sl_pp[g] = pipe[nxt]
            sl_c0[g] = INF if exited or sl_bar[g] else max(own, sl_src[g])
            wake = INF       # when warps this issue woke on this scheduler can go
            # ---- barrier release: every live warp of the block has arrived ----------------------
            if cta_live[c] > 0 and cta_arrived[c] == cta_live[c] and (k == isa.BARRIER or exited):
                release = cta_bar_t[c] + P[P_BAR_BASE] + P[P_BAR_WARP] * cta_live[c]
                where = cta_where[c]
                q = where % blocks_per_sm
                for w in range(warps_per_cta):
                    sl = q * warps_per_cta + w
                    g2 = (m * 4 + sl % 4) * SQ + sl // 4
                    if sl_warp[g2] >= 0 and sl_bar[g2]:
                        stalls[sl_barins[g2], S_BARRIER] += release - sl_own[g2]
                        sl_bar[g2] = 0
                        sp_wait[m * 4 + sl % 4] -= 1
                        sl_own[g2] = release
                        sl_c0[g2] = max(release, sl_src[g2])
                        sp2 = m * 4 + (q * warps_per_cta + w) % 4
                        if sp2 == sp:
                            wake = min(wake, release)
                        elif release < sp_next[sp2]:
                            sp_ver[sp2] += 1
                            sp_next[sp2] = release
                            hsize = heap_push(hk, hv, hn, hsize, release, sp2, sp_ver[sp2], sp_ver)
                cta_arrived[c] = 0
                cta_bar_t[c] = 0.0
            # ---- a finished block frees its slot; the next block of the grid starts there ------
            if exited and cta_live[c] == 0:
                cta_done[c] = own
                smstat[m, M_LAST] = max(smstat[m, M_LAST], own)
                where = cta_where[c]
                cta_slot[m, where % blocks_per_sm] = -1
                if next_cta < n_ctas:
                    # the block retires, then the SM's launcher (one block at a time) starts
                    # the next block of the grid in its slot
                    td = max(max(own, cta_free[c]) + P[P_RETIRE], launcher[m]) + P[P_DISPATCH]
                    launcher[m] = td
                    cta_start[next_cta] = td
                    cta_sm[next_cta] = m
                    _place(next_cta, m, td, S, warps_per_cta, entry_ptr, entry_step, step_block,
                           blk_first, cta_slot, cta_live, cta_arrived, cta_bar_t, cta_where, sl_warp,
                           sl_e, sl_end, sl_bend, sl_ins, sl_own, sl_bar, sl_cta, sl_start, reg_ready,
                           reg_prod, smstat, sl_src, sl_sprod, blk_len, sl_c0, sl_pp, pipe)
                    mark_slots(cta_where[next_cta] % blocks_per_sm, m, warps_per_cta, sp_slots, sl_warp, SQ, sp_order)
                    next_cta += 1
                    wake = min(wake, td)
                    for u in range(4):
                        sp2 = m * 4 + u
                        if sp2 != sp and td < sp_next[sp2]:
                            sp_ver[sp2] += 1
                            sp_next[sp2] = td
                            hsize = heap_push(hk, hv, hn, hsize, td, sp2, sp_ver[sp2], sp_ver)
                    if next_cta == n_ctas:
                        run_ahead_waiting(
                            sp_next, sp_wait, ahead_t, ahead_greedy, ahead_idle, ahead, stalls, smstat,
                            SQ, n_pipes, kind, pipe, sass, lat, bpen, src_ptr, src, dst_ptr, dst, issue,
                            srcs, dest, stall_cls, e_first, e_end, sl_e, sl_end, sl_bend, sl_ins, sl_own,
                            sl_src, sl_sprod, sl_c0, sl_pp, reg_ready, reg_prod, pipe_free,
                            pipe_interval, sp_free, sp_last, sp_slots, sp_order)
            greedy = g if not exited and not sl_bar[g] and wake == INF else -1
    # the kernel ends when the memory system has applied every store and atomic
    drained = max(state[0], atom_free.max(), drain)
    glob[G_ATOM_HOT] = atom_busy.max()
    return max(end_time, drained)
