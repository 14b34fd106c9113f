"""``lower_bound``: binary search in a sorted 1-D array, as Warp's ``native/array.h``."""
from typing import Any

import simt as wp


@wp.func
def lower_bound_range(arr: wp.array(dtype=Any), arr_begin: int, arr_end: int, value: Any) -> int:
    lower = arr_begin
    upper = arr_end - 1
    while lower < upper:
        mid = lower + (upper - lower) / 2
        if arr[mid] < value:
            lower = mid + 1
        else:
            upper = mid
    return lower


@wp.func
def lower_bound(arr: wp.array(dtype=Any), value: Any) -> int:
    return lower_bound_range(arr, 0, arr.shape[0], value)


@wp.func
def lower_bound(arr: wp.array(dtype=Any), arr_begin: int, arr_end: int, value: Any) -> int:  # noqa: F811
    return lower_bound_range(arr, arr_begin, arr_end, value)
