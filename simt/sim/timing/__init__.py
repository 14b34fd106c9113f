"""The timing model: the precise engine records what every warp did (recorder.py); the machine
(machine.py) replays it on every SM of the GPU with contention for schedulers, pipes, the
shared pipe, the L1s, the L2, DRAM and the atomic units (memsys.py); model.py turns that into Nsight
Compute's metrics and names the limiting resource. Costs per MIR instruction: isa.py."""
