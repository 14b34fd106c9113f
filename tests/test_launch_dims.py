"""Launches of 4 dimensions, as Warp allows: every engine against numpy, the PTX through ptxas."""
from __future__ import annotations

import shutil

import numpy as np
import pytest

import simt as wp
from simt.gpu import ptxas


@wp.kernel
def index_4d(out: wp.array4d(dtype=int), b: int, c: int, d: int):
    i, j, k, l = wp.tid()
    out[i, j, k, l] = i * b * c * d + j * c * d + k * d + l


@wp.kernel
def add_4d(a: wp.array4d(dtype=float), x: wp.array4d(dtype=float)):
    i, j, k, l = wp.tid()
    a[i, j, k, l] += x[i, j, k, l]


@wp.kernel
def first_two_of_4d(counts: wp.array2d(dtype=wp.int32)):
    i, j = wp.tid()
    wp.atomic_add(counts, i, j, 1)


def _devices():
    return ["cpu:precise", "cpu", pytest.param("cuda", marks=pytest.mark.simt_gpu)]


@pytest.mark.parametrize("device", _devices())
@pytest.mark.parametrize("block_dim", [32, 256])
def test_4d_launch_indexes_every_element_once(device, block_dim):
    shape = (2, 3, 4, 5)
    out = wp.full(shape, -1, dtype=int, device=device)
    wp.launch(index_4d, dim=shape, inputs=[out, 3, 4, 5], block_dim=block_dim, device=device)
    np.testing.assert_array_equal(out.numpy(), np.arange(120).reshape(shape))


@pytest.mark.parametrize("device", _devices())
def test_4d_read_modify_write_matches_numpy(device):
    rng = np.random.default_rng(4)
    a0 = rng.standard_normal((3, 3, 3, 3)).astype(np.float32)
    x0 = rng.standard_normal((3, 3, 3, 3)).astype(np.float32)
    a = wp.array(a0, device=device)
    wp.launch(add_4d, dim=a0.shape, inputs=[a, wp.array(x0, device=device)], device=device)
    np.testing.assert_array_equal(a.numpy(), a0 + x0)


@pytest.mark.parametrize("device", _devices())
def test_a_4d_launch_over_a_2d_kernel_repeats_each_kept_coordinate(device):
    counts = wp.zeros((4, 8), dtype=wp.int32, device=device)
    wp.launch(first_two_of_4d, dim=(4, 8, 3, 2), inputs=[counts], device=device)
    np.testing.assert_array_equal(counts.numpy(), np.full((4, 8), 6, dtype=np.int32))


def test_4d_launch_with_an_nd_block_is_a_clear_error():
    out = wp.zeros((2, 3, 4, 5), dtype=int)
    with pytest.raises(wp.LaunchError, match="a 4-d launch takes an int block_dim"):
        wp.launch(index_4d, dim=(2, 3, 4, 5), inputs=[out, 3, 4, 5], block_dim=(1, 1, 4, 5))
    with pytest.raises(wp.LaunchError, match="dim must have 1 to 4 dimensions"):
        wp.launch(index_4d, dim=(1, 2, 3, 4, 5), inputs=[out, 3, 4, 5])


@pytest.mark.skipif(shutil.which("ptxas") is None, reason="ptxas is not on PATH")
def test_4d_kernel_ptx_assembles():
    ptxas.assemble(wp.ptx(index_4d, dim_ndim=4), "sm_90")
