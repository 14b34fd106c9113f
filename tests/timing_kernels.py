"""Kernels more than one timing test file launches."""
import simt as wp


def streaming(n, block=256):
    @wp.kernel
    def copy(src: wp.array(dtype=float), dst: wp.array(dtype=float), stride: int):
        i = wp.tid()
        dst[i] = src[i * stride]
    return copy
