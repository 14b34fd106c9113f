"""What a suite case is, and how to run one on simt (any device) or on warp-lang.

A case describes its launch engine-neutrally (numpy data plus the *name* of the element
type), so the same inputs can become ``simt.array`` objects or ``warp.array`` objects, and
the same numpy reference checks both.
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from types import ModuleType
from typing import Callable

import numpy as np

Dim = int | tuple[int, ...]


@dataclass(frozen=True)
class ArrayInput:
    """An array argument. ``data`` keeps composite components as trailing axes
    (n vec3 -> numpy (n, 3)); ``dtype`` names the element type in the kernel language
    (``"float32"``, ``"int32"``, ``"vec3"``, ``"mat33"``, ``"quat"``...)."""
    name: str
    data: np.ndarray
    dtype: str


@dataclass(frozen=True)
class ScalarInput:
    """A by-value argument, always an exact-width numpy scalar (np.float32, np.int32...)."""
    name: str
    value: np.generic


Input = ArrayInput | ScalarInput
MakeInputs = Callable[[np.random.Generator, int], tuple[list[Input], Dim, Dim]]
Reference = Callable[[dict[str, object]], dict[str, np.ndarray]]


@dataclass(frozen=True)
class Case:
    """One kernel of the suite with its inputs, its numpy reference and its tolerances.

    ``make_inputs(rng, size)`` returns ``(inputs, dim, block_dim)``; ``reference(values)``
    receives ``{input name: numpy array or scalar}`` (the values *before* the launch) and
    returns ``{output name: expected array}``. Integer outputs must match exactly; float
    outputs within ``rtol``/``atol``.
    """
    name: str
    kernel_module: str            # dotted module that defines the kernel with @wp.kernel
    kernel_name: str              # the kernel's Python name in that module
    make_inputs: MakeInputs
    reference: Reference
    outputs_to_check: tuple[str, ...]
    rtol: float = 0.0
    atol: float = 0.0
    warp_compatible: bool = False  # only Warp language features: runs on warp-lang too
    sizes: dict[str, int] = field(default_factory=lambda: {"small": 256, "large": 1 << 16})
    description: str = ""

    @property
    def kernel(self):
        """The simt kernel object."""
        return self.kernel_in(importlib.import_module(self.kernel_module))

    def kernel_in(self, module: ModuleType):
        """The same kernel from another import of its source (e.g. compiled by warp-lang)."""
        return getattr(module, self.kernel_name)

    @property
    def py_func(self):
        """The undecorated Python function, where the kernel object exposes it."""
        k = self.kernel
        for attr in ("func", "py_func", "__wrapped__"):
            f = getattr(k, attr, None)
            if callable(f):
                return f
        return None


@dataclass
class CaseRun:
    """What one launch of a case produced, and what the reference expected."""
    case: Case
    outputs: dict[str, np.ndarray]
    expected: dict[str, np.ndarray]
    result: object                 # simt's LaunchResult (None for warp-lang)
    dim: Dim
    block_dim: Dim

    def check(self) -> None:
        compare(self.case, self.outputs, self.expected)


def input_values(inputs: list[Input]) -> dict[str, object]:
    """``{name: numpy data or scalar}``: what references read. Copies, so launches cannot
    change them."""
    return {a.name: (a.data.copy() if isinstance(a, ArrayInput) else a.value) for a in inputs}


def to_launch_args(inputs: list[Input], api: ModuleType, device: str | None) -> list:
    """Arrays of ``api`` (simt or warp) for every ArrayInput, scalars passed through."""
    args = []
    for a in inputs:
        if isinstance(a, ArrayInput):
            dtype = getattr(api, a.dtype)
            args.append(api.array(a.data.copy(), dtype=dtype, device=device))
        else:
            args.append(a.value)
    return args


def total_block_threads(block_dim: Dim) -> int:
    return int(np.prod(block_dim)) if isinstance(block_dim, tuple) else int(block_dim)


def run_case(case: Case, size: str | int = "small", device: str = "cpu:precise", seed: int = 0,
             api: ModuleType | None = None, kernel=None) -> CaseRun:
    """Launch ``case`` once and collect its outputs and the reference's expectations.

    ``api`` defaults to simt; pass the ``warp`` module (and ``kernel`` compiled by it) to run
    on warp-lang, whose ``block_dim`` is a plain thread count.
    """
    if api is None:
        api = importlib.import_module("simt")
    n = case.sizes[size] if isinstance(size, str) else int(size)
    rng = np.random.default_rng(seed)
    inputs, dim, block_dim = case.make_inputs(rng, n)
    values = input_values(inputs)
    expected = case.reference(values)
    args = to_launch_args(inputs, api, device)
    if kernel is None:
        kernel = case.kernel
    launch_block = block_dim if api.__name__.startswith("simt") else total_block_threads(block_dim)
    result = api.launch(kernel, dim=dim, inputs=args, device=device, block_dim=launch_block)
    names = [a.name for a in inputs]
    outputs = {name: args[names.index(name)].numpy().copy() for name in case.outputs_to_check}
    return CaseRun(case, outputs, expected, result, dim, block_dim)


def compare(case: Case, outputs: dict[str, np.ndarray], expected: dict[str, np.ndarray]) -> None:
    """Raise AssertionError naming the case and output on the first mismatch."""
    for name in case.outputs_to_check:
        got, want = np.asarray(outputs[name]), np.asarray(expected[name])
        msg = f"case {case.name!r}, output {name!r}"
        if got.shape != want.shape:
            raise AssertionError(f"{msg}: shape {got.shape} != expected {want.shape}")
        if np.issubdtype(want.dtype, np.floating):
            np.testing.assert_allclose(got, want, rtol=case.rtol, atol=case.atol, err_msg=msg)
        else:
            np.testing.assert_array_equal(got, want, err_msg=msg)
