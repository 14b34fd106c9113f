"""Progress bars for long launches, shared by the engines (tqdm, on stderr).

A bar appears only once a launch has run for ``DELAY_S`` seconds, so short launches print
nothing, and only when stderr is a terminal (tqdm's own rule), so logs and pipes stay clean.
Turn bars off with the module option ``progress=False`` (``simt.set_module_options``),
``simt run --no-progress``, or the environment variable ``SIMT_PROGRESS=0``.
"""
from __future__ import annotations

import os
import sys
import threading

DELAY_S = 2.0


def enabled(option: bool) -> bool:
    """Whether a launch with the module option ``progress=option`` may show a bar."""
    return bool(option) and os.environ.get("SIMT_PROGRESS", "1").strip().lower() not in (
        "0", "false", "no", "off")


def _is_terminal(stream) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


class LaunchProgress:
    """Blocks done out of a launch's total; safe to advance from several threads."""

    def __init__(self, kernel: str, total_blocks: int):
        from tqdm import tqdm
        self._lock = threading.Lock()
        self.bar = tqdm(total=total_blocks, desc=f"simt {kernel}", unit="block", delay=DELAY_S,
                        file=sys.stderr, leave=True, disable=None, dynamic_ncols=True)

    def advance(self, blocks: int) -> None:
        with self._lock:
            self.bar.update(blocks)

    def update(self, done: int) -> None:
        """Set the number of blocks done so far."""
        with self._lock:
            self.bar.update(done - self.bar.n)

    def close(self) -> None:
        self.bar.close()

    done = close


def launch_progress(kernel: str, total_blocks: int, option: bool) -> LaunchProgress | None:
    """A progress reporter for one launch, or None when bars are off."""
    if not enabled(option) or total_blocks <= 1 or not _is_terminal(sys.stderr):
        return None
    progress = LaunchProgress(kernel, total_blocks)
    if progress.bar.disable:        # stderr is not a terminal
        return None
    return progress
