"""Analysis of simt traces: load a trace into pandas, then bank conflicts, coalescing,
divergence and per-line tables, plots and a Perfetto timeline.

    from simt import analysis
    df = analysis.load_trace("run.jsonl")          # or pass the path to any analysis
    analysis.bank_conflicts(df)                    # per instruction; by="line" per source line
    analysis.coalescing(df)                        # per line and op
    analysis.divergence(df)                        # per conditional branch
    analysis.to_perfetto(df, "run.perfetto.json")  # open in ui.perfetto.dev

Every analysis takes a DataFrame, a path (read chunk by chunk, for traces bigger than
memory) or an iterable of chunks from ``iter_trace_chunks``. ``trace_metrics`` recomputes
the launch's counters under the engine's metric names, so a trace can be checked against
the ``LaunchResult`` of the same launch.
"""
from .banks import bank_conflicts, bank_histogram, lane_bank_counts
from .coalescing import coalescing
from .divergence import active_lanes, divergence
from .loading import (FilteredTraceError, TraceDamageWarning, TraceFormatError, iter_trace_chunks,
                      load_trace, read_header)
from .perfetto import to_perfetto
from .plots import plot_bank_heatmap, plot_line_conflicts, plot_warp_timeline
from .summary import per_line, trace_metrics

__all__ = ["FilteredTraceError", "TraceDamageWarning", "TraceFormatError", "active_lanes", "bank_conflicts", "bank_histogram", "coalescing",
           "divergence", "iter_trace_chunks", "lane_bank_counts", "load_trace", "per_line",
           "plot_bank_heatmap", "plot_line_conflicts", "plot_warp_timeline", "read_header",
           "to_perfetto", "trace_metrics"]
