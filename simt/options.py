"""Compile and launch options (``simt.set_module_options``).

Warp keeps options per module; simt keeps one global set because its compile cache is
keyed by the options themselves. Warp's option names are accepted: ``fast_math`` means
``fastmath`` and ``mode="debug"`` means ``debug=True``; Warp options simt has no use for
are accepted and ignored so Warp programs run unchanged.
"""
from __future__ import annotations

import types

from .arch import is_path, known_archs, load_arch
from .errors import SimtError

ARCHS = known_archs()         # the JSON files of simt/arch, by name

DEFAULTS = {"debug": False, "fastmath": False, "max_steps": 1_000_000, "arch": "sm_90",
            "timing": True, "timing_sample": True, "timing_sass": True, "progress": True, "trace": None, "check": None,
            "raise_on_hazard": False}

_WARP_IGNORED = frozenset({
    "enable_backward", "max_unroll", "lineinfo", "block_dim", "fuse_fp", "cuda_output",
    "optimization_level", "compile_time_trace", "strip_hash_suffix", "enable_mathdx_gemm",
    "enable_vector_component_overwrites", "cuda_max_registers", "enable_cuda_smem_spilling",
    "cpu_compiler_flags", "default_grid_stride", "enable_mathdx_fft", "enable_mathdx_solver",
    "extra_build_options", "strip_hash", "deterministic_max_records",
    "deterministic",      # the precise engine is deterministic; Warp's switch has no meaning here
})

_options = dict(DEFAULTS)

# Warp programs set ``wp.config.mode = "debug"`` or ``wp.config.quiet = True``.
config = types.SimpleNamespace(mode="release", quiet=False, verbose=False, verify_fp=False)


def _normalise(options: dict) -> dict:
    out = {}
    for key, value in options.items():
        if key == "fast_math":
            key = "fastmath"
        if key == "mode":
            if value not in ("debug", "release"):
                raise SimtError(f"module option 'mode' must be 'debug' or 'release', got {value!r}")
            key, value = "debug", value == "debug"
        if key in _WARP_IGNORED:
            continue
        if key not in DEFAULTS:
            raise SimtError(f"unknown module option {key!r}; simt understands "
                            f"{', '.join(sorted(DEFAULTS))} (and Warp's options)")
        out[key] = _check(key, value)
    return out


def _check(key: str, value):
    if key == "trace":
        if value is not None and not isinstance(value, str):
            raise SimtError(f"module option 'trace' must be a file path or None, got {value!r}")
        return value
    if key == "check":     # None, "race", "init", "sync", "all" or a list of them
        from .sim.check import parse_checks
        checks = parse_checks(value)
        return sorted(checks) if checks else None
    if key in ("debug", "fastmath", "timing", "timing_sample", "timing_sass", "progress", "raise_on_hazard"):
        if not isinstance(value, (bool, int)):
            raise SimtError(f"module option {key!r} must be True or False, got {value!r}")
        return bool(value)
    if key == "max_steps":
        if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
            raise SimtError(f"module option 'max_steps' must be a positive int, got {value!r}")
        return value
    if not isinstance(value, str) or not (value in ARCHS or is_path(value)):
        raise SimtError(f"module option 'arch' must be one of {', '.join(ARCHS)} or the path of an "
                        f"architecture JSON file, got {value!r}")
    return load_arch(value).name          # a file: checked now, kept as its absolute path


def set_module_options(options: dict, module=None) -> None:
    """Update the options; ``module`` is accepted for Warp compatibility and ignored."""
    _options.update(_normalise(dict(options)))


def get_module_options(module=None) -> dict:
    """A copy of the current options, with ``debug`` also on under ``config.mode == "debug"``."""
    out = dict(_options)
    out["debug"] = out["debug"] or config.mode == "debug"
    return out


class ScopedModuleOptions:
    """``with simt.ScopedModuleOptions({"timing": False}):`` sets options for a block (spelled
    like Warp's ``ScopedDevice``) and afterwards puts back every option and ``config.mode``
    as they were, whatever the block set in between. The options are checked on creation."""

    def __init__(self, options: dict | None = None):
        self.options = _normalise(dict(options or {}))
        self._saved: tuple[dict, str] | None = None

    def __enter__(self) -> dict:
        self._saved = dict(_options), config.mode
        _options.update(self.options)
        return get_module_options()

    def __exit__(self, *exc) -> None:
        saved, mode = self._saved
        _options.clear()
        _options.update(saved)
        config.mode = mode


def reset_module_options() -> None:
    """Back to the defaults (tests use this)."""
    _options.clear()
    _options.update(DEFAULTS)
    config.mode = "release"


def check_arch(arch: str) -> str:
    return _check("arch", arch)
