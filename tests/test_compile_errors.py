"""Every front-end error names the file, the line and the column (with a caret) of the
offending code and says what to do. Lines marked ``# <-`` are where each error must point;
the caret must sit on the snippet given with each case."""
from __future__ import annotations

import linecache

import numpy as np
import pytest

import simt as wp
from simt.errors import CompileError
from simt.ir.compile import compile_kernel, kernel_params
from simt.ir.mir import LaunchSig

GLOBAL_LIST = [1, 2, 3]
GLOBAL_ARRAY = np.zeros(4)
N_CONST = 16
SHAPE_CONST = (8, 8)


@wp.func
def add_one(x: float) -> float:
    return x + 1.0


@wp.func
def recurse(x: int) -> int:
    if x <= 0:
        return 0
    return recurse(x - 1)   # <-


@wp.func
def two_types(x: float):
    if x > 0.0:
        return 1.0
    return int(x)   # <-


def marked_line(func) -> int:
    import inspect
    lines, start = inspect.getsourcelines(func)
    for k, text in enumerate(lines):
        if "# <-" in text:
            return start + k
    raise AssertionError("no marked line")


def expect_error(func, message: str, snippet: str, sig=LaunchSig(), marked=None) -> CompileError:
    with pytest.raises(CompileError) as info:
        compile_kernel(func, sig, False, False)
    e = info.value
    text = str(e)
    assert message in text, text
    assert __file__ in text
    assert "^" in text.splitlines()[-1], text
    assert e.loc.line == marked_line(marked or func), text
    source_line = linecache.getline(e.loc.file, e.loc.line)
    assert source_line[e.loc.col:].startswith(snippet), (source_line, e.loc.col, text)
    return e


# ---- cases ---------------------------------------------------------------------------------

def var_changes_type(a: wp.array(dtype=float)):
    x = 1
    x = 2.0   # <-


def float_var_given_an_int_literal(a: wp.array(dtype=float)):
    v = 1.0
    if a[0] > 0.0:
        v = 2   # <-
    a[0] = v


def double_var_given_a_float_literal(a: wp.array(dtype=float)):
    v = wp.float64(1.0)
    v = 2.0   # <-
    a[0] = float(v)


def unpacked_var_changes_type(a: wp.array(dtype=float)):
    s, n = 0.0, 0
    s, n = 1, 2   # <-
    a[0] = s


def uint_var_given_an_int_literal(a: wp.array(dtype=float)):
    u = wp.uint32(1)
    for i in range(3):
        u = 2   # <-
    a[0] = float(u)


def mismatched_operands(a: wp.array(dtype=float), n: int):
    i = wp.tid()
    a[i] = a[i] + n   # <-


def unknown_name(a: wp.array(dtype=float)):
    a[0] = undefined_thing   # <-  # noqa: F821


def unknown_builtin(a: wp.array(dtype=float)):
    a[0] = wp.no_such_builtin(1.0)   # <-


def wrong_arg_count(a: wp.array(dtype=float)):
    a[0] = wp.sqrt(1.0, 2.0)   # <-


def wrong_arg_type(a: wp.array(dtype=float)):
    a[0] = wp.dot(a[0], 2.0)   # <-


def star_args_call(a: wp.array(dtype=float)):
    args = 1.0
    a[0] = add_one(*args)   # <-


def star_params(*arrays):   # <-
    pass


def captures_list(a: wp.array(dtype=int)):
    a[0] = GLOBAL_LIST[0]   # <-


def captures_array(a: wp.array(dtype=float)):
    a[0] = GLOBAL_ARRAY   # <-


def shared_dynamic_shape(a: wp.array(dtype=float), n: int):
    s = wp.shared.array(shape=(n,), dtype=float)   # <-


def returns_value(a: wp.array(dtype=float)):
    return 1.0   # <-


def calls_recursion(a: wp.array(dtype=int)):
    a[0] = recurse(3)


def inconsistent_return(a: wp.array(dtype=float)):
    a[0] = two_types(1.0)


def uses_lambda(a: wp.array(dtype=float)):
    f = lambda x: x   # <-  # noqa: E731


def uses_comprehension(a: wp.array(dtype=float)):
    b = [x for x in range(3)]   # <-


def uses_with(a: wp.array(dtype=float)):
    with open("x"):   # <-
        pass


def uses_try(a: wp.array(dtype=float)):
    try:   # <-
        pass
    except Exception:
        pass


def uses_global(a: wp.array(dtype=float)):
    global N_CONST   # <-


def uses_fstring(a: wp.array(dtype=float)):
    s = f"{a}"   # <-


def uses_list_literal(a: wp.array(dtype=float)):
    b = [1.0, 2.0]   # <-


def uses_dict_literal(a: wp.array(dtype=float)):
    b = {1: 2}   # <-


def for_over_array(a: wp.array(dtype=float)):
    for x in a:   # <-
        pass


def nested_def(a: wp.array(dtype=float)):
    def inner():   # <-
        pass


def unpack_too_many(a: wp.array(dtype=int)):
    i, j = a[0]   # <-


def vec_plus_float(a: wp.array(dtype=wp.vec2)):
    a[0] = a[0] + 1.0   # <-


def store_wrong_type(a: wp.array(dtype=int)):
    a[0] = 1.5   # <-


@wp.func
def _apply(g: wp.Function, x: float):
    return g(x)


@wp.func
def _add(g: float, x: float):
    return g + x


def value_for_a_function_parameter(a: wp.array(dtype=float)):
    a[0] = _apply(1.0, 3.0)   # <-


def function_for_a_value_parameter(a: wp.array(dtype=float)):
    a[0] = _add(_apply, 3.0)   # <-


def static_of_a_reassigned_local(a: wp.array(dtype=int)):
    c = 3
    c = c + 1
    a[0] = wp.static(c)   # <-


def use_before_assign(a: wp.array(dtype=float)):
    if a[0] > 0.0:
        a[1] = y   # <-
    y = 1.0


def bad_component(a: wp.array(dtype=wp.vec3)):
    v = a[0]
    v.w = 1.0   # <-


def index_float(a: wp.array(dtype=float)):
    a[1.5] = 0.0   # <-


def partial_index(a: wp.array2d(dtype=float)):
    x = a[0] + 1.0   # <-


def atomic_wrong_indices(a: wp.array2d(dtype=float)):
    wp.atomic_add(a, 0, 1.0)   # <-


def cond_on_vector(a: wp.array(dtype=wp.vec3)):
    if a[0]:   # <-
        pass


def shared_bad_layout(a: wp.array(dtype=float)):
    s = wp.shared.array(shape=4, dtype=float, layout="diagonal")   # <-


def string_constant(a: wp.array(dtype=float)):
    x = "hello"   # <-


def range_outside_for(a: wp.array(dtype=int)):
    r = range(4)   # <-


def is_comparison(a: wp.array(dtype=int)):
    if a[0] is None:   # <-
        pass


CASES = [
    (var_changes_type, "variable 'x' changes type from int32 (line 67) to float32 (line 68)", "x = 2.0"),
    (float_var_given_an_int_literal, "variable 'v' changes type from float32 (line 72) to int32 (line 74)",
     "v = 2"),
    (double_var_given_a_float_literal, "variable 'v' changes type from float64 (line 79) to float32",
     "v = 2.0"),
    (unpacked_var_changes_type, "variable 's' changes type from float32 (line 85) to int32 (line 86)",
     "s, n = 1, 2"),
    (uint_var_given_an_int_literal, "variable 'u' changes type from uint32 (line 91) to int32 (line 93)",
     "u = 2"),
    (mismatched_operands, "cannot combine float32 and int32", "a[i] + n"),
    (unknown_name, "unknown name 'undefined_thing'", "undefined_thing"),
    (unknown_builtin, "has no attribute 'no_such_builtin'", "wp.no_such_builtin"),
    (wrong_arg_count, "sqrt(float32, float32)", "wp.sqrt(1.0, 2.0)"),
    (wrong_arg_type, "dot(", "wp.dot"),
    (star_args_call, "*args in calls are not supported", "*args"),
    (star_params, "*arrays parameters are not supported", "arrays"),
    (captures_list, "kernels can only capture constants", "GLOBAL_LIST"),
    (captures_array, "kernels can only capture constants", "GLOBAL_ARRAY"),
    (shared_dynamic_shape, "compile-time constant", "n,)"),
    (returns_value, "kernels cannot return a value", "return 1.0"),
    (uses_lambda, "lambda", "lambda"),
    (uses_comprehension, "comprehension", "[x for"),
    (uses_with, "'with'", "with"),
    (uses_try, "try/except", "try"),
    (uses_global, "'global'", "global"),
    (uses_fstring, "f-strings", 'f"'),
    (uses_list_literal, "lists are not supported", "[1.0"),
    (uses_dict_literal, "dicts are not supported", "{1"),
    (for_over_array, "range(...)", "a:"),
    (nested_def, "functions cannot be defined inside kernels", "def inner"),
    (unpack_too_many, "cannot unpack a int32 into 2 variables", "i, j = a[0]"),
    (vec_plus_float, "cannot combine vec2 and float32", "a[0] + 1.0"),
    (store_wrong_type, "cannot store a float32 into an element of type int32", "a[0] = 1.5"),
    (use_before_assign, "used before it is assigned", "y"),
    (value_for_a_function_parameter, "argument 'g' must be a function, got a float32", "_apply("),
    (function_for_a_value_parameter, "argument 'g' is the function _apply; a parameter that takes "
                                     "a function is annotated wp.Function", "_add("),
    (static_of_a_reassigned_local, "static() of 'c', a variable of the kernel", "c)"),
    (bad_component, "out of range for a vec3", "v.w"),
    (index_float, "indices must be integers", "1.5"),
    (partial_index, "got a array(float32, 1d)", "a[0]"),   # a[0] is a row: a view
    (atomic_wrong_indices, "needs 2 indices", "wp.atomic_add"),
    (cond_on_vector, "cannot be used as a condition", "a[0]"),
    (shared_bad_layout, "row_major", '"diagonal"'),
    (string_constant, "strings are not supported", '"hello"'),
    (range_outside_for, "range() can only be used in a for loop", "range(4)"),
    (is_comparison, "comparisons are", "a[0] is None"),
]


@pytest.mark.parametrize("func, message, snippet", CASES, ids=[c[0].__name__ for c in CASES])
def test_compile_error(func, message, snippet):
    expect_error(func, message, snippet)


def test_recursion_is_rejected():
    expect_error(calls_recursion, "recursive call of recurse()", "recurse(x - 1)", marked=recurse.py_func)


def test_device_function_returning_two_types():
    expect_error(inconsistent_return, "every return must give the same type", "return int(x)",
                 marked=two_types.py_func)


def test_missing_annotation():
    def k(a):
        pass

    with pytest.raises(CompileError, match="needs a type annotation") as info:
        kernel_params(k)
    assert info.value.loc.line == k.__code__.co_firstlineno
    assert "^" in str(info.value)


def test_constants_are_captured():
    def k(a: wp.array(dtype=int)):
        s = wp.shared.array(shape=SHAPE_CONST, dtype=int)
        a[0] = N_CONST + s[0, 0]

    compile_kernel(k, LaunchSig(), False, False)


def test_closure_over_non_constant_is_rejected():
    table = {"a": 1}

    def k(a: wp.array(dtype=int)):
        a[0] = table["a"]   # <-

    expect_error(k, "kernels can only capture constants", "table")


def test_internal_errors_carry_location(monkeypatch):
    from simt.ir import registry

    def broken_infer(types):
        raise ZeroDivisionError("boom")

    builtin = registry.REGISTRY["sqrt"]
    monkeypatch.setitem(registry.REGISTRY, "sqrt", registry.Builtin(
        "sqrt", broken_infer, builtin.lower, builtin.doc, builtin.group, builtin.pure))

    def k(a: wp.array(dtype=float)):
        a[0] = wp.sqrt(a[0])   # <-

    expect_error(k, "internal compiler error (ZeroDivisionError: boom)", "wp.sqrt")
