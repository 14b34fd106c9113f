"""The timing model's tables, by column: the machine's parameters (filled by model.params
from the architecture's data), the memory system's running state, the stall reasons, and
the per-SM and GPU-wide statistics the machine (machine.py) and its memory system
(memsys.py) accumulate and model.py reports."""
from __future__ import annotations

from . import isa

# numba-constants: the machine compiles these in (numba_cache.py keys its caches on this file)

# parameter indices (see params() in model.py)
(P_DISPATCH, P_L1_LAT, P_L1_LINE_STEP, P_L1_LINE_CYCLES, P_L2_LAT, P_L2_TAIL, P_DRAM_LAT,
 P_DRAM_TAIL, P_L2_READ_BPC, P_L2_WRITE_BPC, P_DRAM_BPC, P_DRAM_WRITE_COST, P_DRAM_FETCH,
 P_SH_LAT, P_SH_MIN, P_SH_ATOM_LAT, P_SH_ATOM_SAME_LAT, P_SH_ATOM_SAME_TPUT, P_SH_FATOM_ROUND,
 P_SH_FATOM_SASS, P_G_ATOM_LAT, P_ATOM_SAME, P_ATOM_SAME_F, P_ATOM_UNITS, P_ATOM_INTERLEAVE,
 P_BAR_BASE, P_BAR_WARP, P_L2_DIRTY_SECTORS, P_QUEUE_ALLOWANCE, P_L2_WRITE_LINE,
 P_L2_WRITE_SECTOR, P_RETIRE, P_STORE_RETIRE, P_BRANCH, P_ATOM_SPREAD, P_ATOM_COLD,
 P_DRAM_QUEUE, P_ATOM_LINE, P_DRAM_WRITE_QUEUE, P_SAMPLE, P_L2_PARTS, P_L2_REQUEST,
 P_L1_TAG_LINE, P_STORE_MERGE, P_STORE_LINE, P_STORE_SECTOR, P_STORE_DATA, P_ATOM_WINDOW, P_DRAM_ACCESS,
 P_DRAM_PAGE, P_STORE_MERGE_NEAR, P_STORE_MERGE_SHARE, P_L1_FOLD, P_L2_MERGE, P_L2_MERGE_MOST, P_DRAM_RMW_ACCESS, N_PARAMS) = range(57)

# the memory system's running state (machine.py's ``state``, kept by memsys.py)
(ST_L2_FREE,             # when the last work the L2 queue took ends (its ledger: l2queue.l2_take)
 ST_DRAM_FREE,           # when the DRAM's queue is next free
 ST_HELD_UNTIL,          # global_access's answer: until when full queues hold the issuing warp
 ST_NOW,                 # the current request's time at the L1's tag stage
 ST_LRU_CLOCK,           # the caches' LRU clock
 ST_DIRTY_SECTORS,       # the L2's dirty sectors
 ST_FIFO_HEAD,           # the queue of dirty lines (oldest first): where the next goes
 ST_FIFO_TAIL,           # ... and the oldest not yet written back
 ST_DRAM_READ_USE,       # the DRAM's recent read time per cycle
 ST_DRAM_USE_TIME,       # the time the recent uses were last aged to
 ST_DRAM_WRITE_USE,      # the DRAM's recent write time per cycle
 ST_OTHERS,              # a sampled replay's L2: lines of SMs not replayed still to place
 ST_OTHERS_N,            # ... and how many were placed
 ST_REREAD,              # ... the sectors it read of halves it had fetched before
 ST_REMISS,              # ... and of them, those that missed
 ST_WARP,                # the issuing warp's slot (global_access reads it)
 ST_DRAM_DRAIN,          # when the DRAM's queue drains, its writes at their bytes alone
 ST_WB_PAGE,             # the DRAM page of the last line written back
 N_STATE) = range(19)

# an SM's recent stores to one sector (machine.py's ``l1_store``, kept by memsys.py): LS_ENTRIES
# rows of (the sector and the words it wrote: sector * 256 + a bit a word, -1 for none; when its
# acknowledgement comes back; the warp that stored it), then a row of (when a store queued behind
# one of them is sent, while a store of its words may join it; until when that store holds the
# SM's requests behind it; its sector and words)
LS_ENTRIES = 16
LS_KEY, LS_ACK, LS_WARP = 0, 1, 2
LS_PENDING, LS_HOLD, LS_PKEY = 0, 1, 2

# stall reasons (columns of the stall table)
S_WAIT, S_LONG, S_SHORT, S_THROTTLE, S_NOT_SELECTED, S_BARRIER, S_LG_THROTTLE = range(7)
STALL_NAMES = ("wait", "long_scoreboard", "short_scoreboard", "math_pipe_throttle",
               "not_selected", "barrier", "lg_throttle")

# per-SM statistics (columns)
(M_ISSUE, M_PIPE0) = (0, 1)                    # issue slots used; busy cycles of pipe p at 1 + p
M_LSU = 1 + isa.NO_PIPE                        # shared-pipe cycles
M_L1T = M_LSU + 1                              # L1 tag-stage cycles
M_WARP_CYCLES = M_L1T + 1                      # sum of warp residencies
M_FIRST = M_WARP_CYCLES + 1                    # first block start
M_LAST = M_FIRST + 1                           # last block end
M_CTAS = M_LAST + 1
N_SM_STATS = M_CTAS + 1

# global statistics
(G_L2_READ, G_L2_READ_HIT, G_L2_WRITE, G_L2_ATOM, G_DRAM_READ, G_DRAM_WRITE, G_L1_SECTORS,
 G_L1_HITS, G_L2_BUSY, G_DRAM_BUSY, G_ATOM_BUSY, G_ATOM_OPS, G_L2_ATOM_HIT, G_ATOM_HOT,
 G_DIRTIED,          # sectors the L2 marked dirty (each written back later, or dirty at the end)
 G_DIRTIED_W,        # ... each counted by the lines its line stands for (memsys._stands_for)
 G_DRAM_WRITE_BUSY,  # the DRAM time of the written bytes (G_DRAM_BUSY's share)
 N_GLOBAL_STATS) = range(18)
