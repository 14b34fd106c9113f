"""The GPU side of simt: MIR -> PTX (``ptx``), ptxas reports (``ptxas``), and the ``cuda``
engine that loads and launches the PTX (``runtime``, ``memory``).

Nothing is imported eagerly: ``import simt`` must not pay for (or fail on) the GPU parts.
"""
