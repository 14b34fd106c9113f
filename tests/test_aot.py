"""simt.build_kernel and the C/C++ runtime, with no GPU: the cpu target run from a C++
program gives the fast engine's bits; bad calls are refused naming kernel and parameter; a
rebuilt kernel replaces the loaded one; the cuda target's cubins carry the signature in an
ELF note that moves no other byte."""
from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import struct
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import simt as wp
from simt import suite
from simt.aot import build_kernel
from simt.aot import elf_note
from simt.errors import CompileError

import test_aot_kernels as K

pytestmark = pytest.mark.skipif(shutil.which("g++") is None or shutil.which("cc") is None,
                                reason="needs g++ and a C compiler")

# suite cases covering: 1-d and 2-d grids, vector arrays, float math, integer semantics,
# shared memory with barriers, a warp shuffle with a deferred float atomic, integer atomics
SUITE_CASES = ("vec_mat_quat", "mandelbrot", "arith_semantics",
               "warp_shuffle_sum", "histogram_shared", "matmul_tiled")


@pytest.fixture(scope="module")
def driver(tmp_path_factory):
    return K.compile_driver(tmp_path_factory.mktemp("driver"))


@pytest.mark.parametrize("name", SUITE_CASES)
def test_suite_kernel_from_cpp_matches_fast_engine_bitwise(name, driver, tmp_path):
    case = next(c for c in suite.CASES if c.name == name)
    inputs, dim, block = case.make_inputs(np.random.default_rng(3), case.sizes["small"])
    out = build_kernel(case.kernel, target="cpu", out_dir=tmp_path / "build", block_dim=block,
                       dim_ndim=len(dim) if isinstance(dim, tuple) else 1)
    got = K.run_driver(driver, "cpu", out, inputs, dim, block, tmp_path)
    fast = K.engine_outputs(case.kernel, inputs, dim, block, "cpu")
    assert K.differing(fast, got) == []
    case_values = {a.name: a.data for a in inputs if isinstance(a, suite.case.ArrayInput)}
    assert any(case_values[n].tobytes() != got[n].tobytes() for n in got), "the launch wrote nothing"


@pytest.mark.parametrize("name", list(K.extra_cases()))
def test_more_ops_from_cpp_match_fast_engine_bitwise(name, driver, tmp_path):
    inputs, dim, block = K.extra_cases()[name]
    kernel = getattr(K, name)
    out = build_kernel(kernel, target="cpu", out_dir=tmp_path / "build", block_dim=block)
    got = K.run_driver(driver, "cpu", out, inputs, dim, block, tmp_path)
    fast = K.engine_outputs(kernel, inputs, dim, block, "cpu")
    if name == "int_wrap":          # (x * c * y) / y wraps in int64: every engine the same
        precise = K.engine_outputs(kernel, inputs, dim, block, "cpu:precise")
        assert K.differing(precise, got) == []
    assert K.differing(fast, got) == []


def test_vector_and_matrix_values(driver, tmp_path):
    inputs = [suite.case.ScalarInput("v", np.array([1.5, -2.25, 3.0], np.float32)),
              suite.case.ScalarInput("m", np.array([[1.0, 2.5], [-3.0, 4.0]], np.float32)),
              suite.case.ScalarInput("s", np.float32(0.125)),
              K.array_input("out", np.zeros(40, np.float32))]
    out = build_kernel(K.vector_params, target="cpu", out_dir=tmp_path / "build")
    m = json.loads((out / "manifest.json").read_text())
    assert [(p["name"], p["ncomp"], p["element"]) for p in m["params"][:2]] == [("v", 3, "vec3"), ("m", 4, "mat22")]
    got = K.run_driver(driver, "cpu", out, inputs, 40, 256, tmp_path)
    i = np.arange(40, dtype=np.float32)
    expected = (np.float32(1.5) * i + np.float32(-2.25) - np.float32(3.0) + np.float32(2.5 * -3.0)
                - np.float32(4.0) + np.float32(0.125))
    assert got["out"].tobytes() == expected.astype(np.float32).tobytes()
    assert K.differing(K.engine_outputs(K.vector_params, inputs, 40, 256, "cpu"), got) == []


def test_block_size_given_at_launch(driver, tmp_path):
    """A linear-mapping kernel launched with another block size (block_sum_shared reads its
    block index, so the grid must follow the launch's block size)."""
    inputs, dim, block = K.extra_cases()["atomics_used"]
    out = build_kernel(K.atomics_used, target="cpu", out_dir=tmp_path / "build", block_dim=block)
    got = K.run_driver(driver, "cpu", out, inputs, dim, block, tmp_path, block_override=32)
    fast = K.engine_outputs(K.atomics_used, inputs, dim, 32, "cpu")
    assert K.differing(fast, got) == []


def test_bad_calls_are_refused_naming_kernel_and_parameter(driver, tmp_path):
    out = build_kernel(K.saxpy_like(), target="cpu", out_dir=tmp_path / "saxpy")
    proc = subprocess.run([str(driver), "badcalls", "cpu", str(out)], capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 0, proc.stderr
    lines = dict(line.split(": ", 1) for line in proc.stdout.splitlines() if ": " in line)
    assert lines["count"] == "kernel 'saxpy' takes 3 arguments (a, x, y), got 2"
    assert "parameter 'a'" in lines["scalar dtype"] and "float32, got float64" in lines["scalar dtype"]
    assert "parameter 'x'" in lines["array dtype"] and "got float64" in lines["array dtype"]
    assert "parameter 'y'" in lines["int array"] and "got int32" in lines["int array"]
    assert "parameter 'y'" in lines["ndim"] and "1-d array, got 2-d" in lines["ndim"]
    assert "parameter 'a'" in lines["kind"] and "got an array" in lines["kind"]
    assert "1-d dim" in lines["dim"]
    assert lines["good"] == "accepted"
    assert "cannot read" in lines["missing kernel"] and "manifest.json" in lines["missing kernel"]
    assert "holds kernel 'saxpy'" in lines["wrong name"]
    assert "refused 9" in proc.stdout


def test_out_of_bounds_index_is_an_error_naming_the_array(driver, tmp_path):
    out = build_kernel(K.reads_past_end, target="cpu", out_dir=tmp_path / "build")
    inputs = [K.array_input("src", np.arange(8, dtype=np.int32)),
              K.array_input("dst", np.zeros(8, np.int32))]
    with pytest.raises(RuntimeError) as err:
        K.run_driver(driver, "cpu", out, inputs, 8, 256, tmp_path)
    message = str(err.value)
    assert "kernel 'reads_past_end': index 8 out of bounds for array 'src'" in message
    assert "test_aot_kernels.py" in message


@pytest.mark.parametrize("name, error, words", [
    ("diverging_barrier", wp.BarrierDivergenceError, "barrier divergence: 16 threads wait at the barrier, 16 do not"),
    ("endless", wp.StepLimitError, "step limit of 1000000 basic blocks per thread exceeded (block 0, thread 0)")])
def test_runtime_errors_as_the_fast_engine_finds_them(name, error, words, driver, tmp_path):
    kernel = getattr(K, name)
    inputs = [K.array_input("out", np.zeros(32, np.int32))]
    with pytest.raises(error):
        K.engine_outputs(kernel, inputs, 32, 32, "cpu")
    out = build_kernel(kernel, target="cpu", out_dir=tmp_path / "build", block_dim=32)
    with pytest.raises(RuntimeError) as err:
        K.run_driver(driver, "cpu", out, inputs, 32, 32, tmp_path)
    assert f"kernel '{name}': {words}" in str(err.value)


def test_hot_reload_replaces_the_kernel(driver, tmp_path):
    out = tmp_path / "fill"
    build_kernel(K.fill_version(1), target="cpu", out_dir=out)
    proc = subprocess.Popen([str(driver), "reload", "cpu", "fill", str(out)], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        first = proc.stdout.readline()
        build_kernel(K.fill_version(2), target="cpu", out_dir=out)   # while the program runs
        proc.stdin.write("go\n")
        proc.stdin.flush()
        second = proc.stdout.readline()
        assert proc.wait(timeout=60) == 0, proc.stderr.read()
    finally:
        if proc.poll() is None:
            proc.kill()
    assert first.split() == ["generation", "0:"] + [str(1 * 100 + i) for i in range(8)]
    assert second.split() == ["generation", "1:"] + [str(2 * 100 + i) for i in range(8)]


def test_c_program_against_the_c_header(tmp_path):
    out = build_kernel(K.saxpy_like(), target="cpu", out_dir=tmp_path / "saxpy")
    source = tmp_path / "main.c"
    source.write_text(K.C_PROGRAM)
    exe = tmp_path / "main"
    from simt import runtime
    subprocess.run(["cc", "-std=c11", "-Wall", "-Werror", *runtime.cflags(), str(source), "-o", str(exe),
                    *runtime.libs()], check=True, capture_output=True, text=True)
    libs = subprocess.run(["ldd", str(exe)], capture_output=True, text=True).stdout
    assert "libpython" not in libs and "libcuda" not in libs
    proc = subprocess.run([str(exe), str(out)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    got = np.array([float(v) for v in proc.stdout.split()], dtype=np.float32)
    x = np.arange(16, dtype=np.float32) * np.float32(0.5)
    assert got.tobytes() == (np.float32(3.0) * x + np.float32(1.0)).tobytes()


def test_print_output_matches_fast_engine(driver, tmp_path, capfd):
    x = np.array([1.5, -0.0, np.nan, -np.inf, 3e-7, 12345.678], np.float32)
    n = np.array([-1, 0, 7, -2147483648, 255, 42], np.int32)
    inputs = [K.array_input("x", x), K.array_input("n", n)]
    out = build_kernel(K.prints, target="cpu", out_dir=tmp_path / "build", block_dim=4)
    capfd.readouterr()
    K.engine_outputs(K.prints, inputs, len(x), 4, "cpu")
    sys.stdout.flush()
    fast = capfd.readouterr().out
    job = tmp_path / "job"
    job.mkdir()
    proc_out = K.run_driver_stdout(driver, "cpu", out, inputs, len(x), 4, job)
    assert fast.count("\n") == 2 * len(x)
    assert proc_out == fast


def test_unsupported_constructs_are_build_errors(tmp_path):
    with pytest.raises(CompileError, match=r"kernel 'struct_with_struct_array', parameter 's': field "
                                           r"'s.items' of struct Shelf is an array of struct Material"):
        build_kernel(K.struct_with_struct_array, target="cpu", out_dir=tmp_path / "v")
    with pytest.raises(CompileError, match=r"kernel 'array_of_structs', parameter 'ms' is an array of "
                                           r"struct Material"):
        build_kernel(K.array_of_structs, target="cpu", out_dir=tmp_path / "v")
    with pytest.raises(CompileError, match="target must be 'cuda' or 'cpu'"):
        build_kernel(K.saxpy_like(), target="metal", out_dir=tmp_path / "m")
    with pytest.raises(CompileError, match="at most 1024 threads"):
        build_kernel(K.saxpy_like(), target="cpu", block_dim=(64, 64), dim_ndim=2, out_dir=tmp_path / "b")


def test_manifest_records_signature_and_hashes(tmp_path):
    out = build_kernel(K.saxpy_like(), target="cpu", out_dir=tmp_path / "saxpy", block_dim=128)
    m = json.loads((out / "manifest.json").read_text())
    assert m["kernel"] == "saxpy" and m["target"] == "cpu" and m["simt_version"] == wp.__version__
    assert [(p["name"], p["kind"], p["dtype"], p["ndim"]) for p in m["params"]] == [
        ("a", "scalar", "float32", 0), ("x", "array", "float32", 1), ("y", "array", "float32", 1)]
    assert m["launch"]["block_dim"] == [128] and m["launch"]["mapping"] == "linear"
    for name, digest in m["hashes"].items():
        assert hashlib.sha256((out / name).read_bytes()).hexdigest() == digest


def test_config_and_build_commands(tmp_path, capsys):
    from simt import cli, runtime
    assert cli.main(["config", "--cflags", "--libs"]) == 0
    printed = capsys.readouterr().out.split()
    assert printed == [f"-I{runtime.include_dir()}", "-ldl", "-lpthread"]
    assert (runtime.include_dir() / "simt" / "runtime.hpp").is_file()
    assert cli.main(["config", "--include"]) == 0
    assert capsys.readouterr().out.strip() == str(runtime.include_dir())
    target = f"{K.__file__}::saxpy_cli"
    assert cli.main(["build", target, "--target", "cpu", "--out", str(tmp_path / "b")]) == 0
    assert (tmp_path / "b" / "manifest.json").is_file() and (tmp_path / "b" / "saxpy_cli.so").is_file()
    assert cli.main(["build", f"{K.__file__}::nothing", "--target", "cpu"]) == 2
    assert cli.main(["build", f"{K.__file__}::struct_params", "--target", "cpu", "--out", str(tmp_path / "s")]) == 0
    assert "typedef struct Body {" in (tmp_path / "s" / "struct_params.h").read_text()


# --- the cuda target, built without a GPU ---------------------------------------------------

def _cuda_tools() -> bool:
    from simt.gpu.sass import find_tool
    return all(find_tool(t) is not None for t in ("ptxas", "fatbinary"))


needs_cuda_tools = pytest.mark.skipif(not _cuda_tools(), reason="needs ptxas and fatbinary")


@needs_cuda_tools
def test_elf_note_moves_no_other_byte():
    from simt.gpu import ptx as ptx_backend
    from simt.gpu.ptxas import run as ptxas_run
    fn = K.saxpy_like().compile()
    raw = ptxas_run(ptx_backend.emit(fn, "sm_90")[0], "sm_90", [])[1]
    desc = json.dumps({"kernel": "saxpy", "params": ["a", "x", "y"]}).encode()
    noted = elf_note.add_note(raw, desc)
    # the original bytes, but for e_shoff (8 bytes at 0x28) and e_shnum (2 bytes at 0x3C)
    patched = set(range(0x28, 0x30)) | set(range(0x3C, 0x3E))
    assert len(noted) > len(raw)
    assert [k for k in range(len(raw)) if raw[k] != noted[k]] == sorted(
        k for k in patched if raw[k] != noted[k])
    old, new = elf_note.sections(raw), elf_note.sections(noted)
    assert len(new) == len(old) + 1
    shstrndx = struct.unpack_from("<H", raw, 0x3E)[0]
    for o, n in zip(old, new):
        before = raw[o["offset"]:o["offset"] + o["size"]] if o["type"] != 8 else b""
        after = noted[n["offset"]:n["offset"] + n["size"]] if n["type"] != 8 else b""
        if o["index"] == shstrndx:       # the names table gains the new name at its end
            assert after.startswith(before) and after[len(before):] == b".note.simt.info\0"
        else:
            assert (n["offset"], n["size"], after) == (o["offset"], o["size"], before)
    assert elf_note.read_note(noted) == desc
    assert elf_note.read_note(raw) is None


@needs_cuda_tools
def test_cuda_target_builds_cubins_ptx_and_fatbin(tmp_path):
    from simt.gpu.sass import find_tool
    out = build_kernel(K.saxpy_like(), target="cuda", arch=["sm_90", "sm_80"], out_dir=tmp_path / "c")
    m = json.loads((out / "manifest.json").read_text())
    assert m["archs"] == ["sm_80", "sm_90"] and m["ptx_arch"] == "sm_80"
    assert set(m["files"]["cubin"]) == {"sm_80", "sm_90"} and m["registers"]["sm_90"] > 0
    for name, digest in m["hashes"].items():
        assert hashlib.sha256((out / name).read_bytes()).hexdigest() == digest
    for arch, file in m["files"]["cubin"].items():
        note = json.loads(elf_note.read_note((out / file).read_bytes()))
        assert note["kernel"] == "saxpy" and note["params"] == m["params"]
    ptx = (out / m["files"]["ptx"]).read_text()
    assert ".target sm_80" in ptx and f".entry {m['entry']}(" in ptx
    cuobjdump = find_tool("cuobjdump")
    if cuobjdump is None:
        pytest.skip("cuobjdump not installed: the note is checked by simt's reader only")
    listing = subprocess.run([cuobjdump, "-elf", str(out / m["files"]["cubin"]["sm_90"])],
                             capture_output=True, text=True, check=True).stdout
    assert any("NOTE" in line and ".note.simt.info" in line for line in listing.splitlines())
    contents = subprocess.run([cuobjdump, "-lelf", "-lptx", str(out / m["files"]["fatbin"])],
                              capture_output=True, text=True, check=True).stdout
    assert "sm_80" in contents and "sm_90" in contents and "PTX" in contents.upper()


# --- struct parameters -------------------------------------------------------------------------

@pytest.fixture(scope="module")
def struct_build(tmp_path_factory):
    """struct_params built for the cpu target, and tests/test_aot_struct.cpp compiled against
    the struct_params.h it wrote (whose static assertions g++ checks)."""
    tmp = tmp_path_factory.mktemp("structs")
    out = build_kernel(K.struct_params, target="cpu", out_dir=tmp / "build")
    return out, K.compile_struct_program(out, tmp)


def test_struct_parameters_from_cpp_match_fast_engine_bitwise(struct_build):
    out, program = struct_build
    n = 200
    for seed in (0, 1):
        inputs = K.struct_inputs(n, seed)
        got = K.struct_outputs(K.run_struct_program(program, "run", "cpu", out, n, inputs))
        fast = K.engine_outputs(K.struct_params, inputs, n, 256, "cpu")
        assert K.differing(fast, got) == []
        assert len(set(got["out"].tolist())) > n // 2 and len(set(got["ids"].tolist())) == n


def test_struct_layout_in_manifest_and_header_is_c_layout(struct_build):
    out, _ = struct_build
    m = json.loads((out / "manifest.json").read_text())
    b, scale, extra = m["params"][:3]
    assert (b["kind"], b["element"], extra["kind"], extra["element"], scale["kind"]) == \
        ("struct", "Body", "struct", "Material", "scalar")
    assert m["files"]["header"] == "struct_params.h" and "struct_params.h" in m["hashes"]

    def check(layout, dtype):          # offsets and sizes as numpy's align=True has them
        assert (layout["size"], layout["align"]) == (dtype.itemsize, dtype.alignment)
        assert [f["name"] for f in layout["fields"]] == list(dtype.names)
        for f in layout["fields"]:
            assert f["offset"] == dtype.fields[f["name"]][1]
            if f["kind"] == "struct":
                check(f["struct"], dtype.fields[f["name"]][0])
    check(b["struct"], K.aligned_dtype(K.Body._simt_type))
    check(extra["struct"], K.aligned_dtype(K.Material._simt_type))
    # leaves in the order of the compiled function's flat parameters, as the PTX lists them
    from simt.gpu import ptx as ptx_backend
    from simt.ir.mir import LaunchSig
    _, _, abi = ptx_backend.emit(K.struct_params.compile(LaunchSig(1, 1)), "sm_90")
    names = [a.name for a in abi if a.kind == "scalar"]
    expanded = []
    for p in m["params"]:
        if p["kind"] == "struct":
            expanded += [f"{p['name']}.{leaf['path']}" + (f"_{c}" if leaf["ncomp"] > 1 else "")
                         for leaf in p["leaves"] for c in range(leaf["ncomp"])]
        elif p["kind"] == "scalar":
            expanded.append(p["name"])
    assert names == expanded
    header = (out / "struct_params.h").read_text()
    assert "typedef struct Body {" in header and "    float tint[2][2];" in header
    assert "SIMT_LAYOUT_ASSERT(offsetof(Body, material) == 24" in header


def test_bad_struct_calls_are_refused_naming_kernel_and_parameter(struct_build):
    out, program = struct_build
    lines = dict(line.split(": ", 1) for line in
                 K.run_struct_program(program, "bad", "cpu", out, 32, K.struct_inputs(32)).splitlines())
    where = "kernel 'struct_params', parameter"
    assert lines["short"] == (f"{where} 'b' (argument 0): expected struct Body of 72 bytes (the C layout "
                              f"in {out}/struct_params.h), got 64 bytes")
    assert lines["long"].endswith("expected struct Body of 72 bytes (the C layout in "
                                  f"{out}/struct_params.h), got 73 bytes")
    assert lines["name"] == f"{where} 'b' (argument 0): expected struct Body, got struct Particle"
    assert lines["other struct"] == f"{where} 'b' (argument 0): expected struct Body, got struct Material"
    assert lines["scalar for struct"] == f"{where} 'extra' (argument 2): expected a struct Material, got a scalar"
    assert lines["struct for scalar"] == f"{where} 'scale' (argument 1): expected a scalar of float32, got a struct"
    assert lines["struct for array"] == f"{where} 'out' (argument 3): expected an array of float32, got a struct"
    assert lines["null"] == f"{where} 'b' (argument 0): null struct pointer"
    assert lines["good"] == "accepted"


C_STRUCT_PROGRAM = r"""
#include "struct_params.h"

int main(int argc, char **argv) {
    simt_context *ctx;
    simt_kernel *k;
    if (argc < 2 || simt_context_create("cpu", &ctx) || simt_load_kernel(ctx, "struct_params", argv[1], &k)) {
        fprintf(stderr, "%s\n", simt_last_error());
        return 1;
    }
    Body b = {{1.5f, -2.0f, 0.25f}, 3.0f, 7, {{{1.0f, 2.0f}, {-1.0f, 0.5f}}, true, 0.125, -3, 0x3c00}, 9};
    Material extra = {{{2.0f, 0.0f}, {0.0f, 1.0f}}, false, -1.0, 4, 0};
    float scale = 0.5f, out[8];
    int32_t ids[8];
    int64_t n = 8;
    simt_arg args[5] = {simt_arg_Body(&b), simt_scalar_arg(SIMT_FLOAT32, &scale), simt_arg_Material(&extra),
                        simt_array_arg(SIMT_FLOAT32, out, 1, &n), simt_array_arg(SIMT_INT32, ids, 1, &n)};
    if (simt_launch(k, 1, &n, args, 5, 0)) {
        fprintf(stderr, "%s\n", simt_last_error());
        return 1;
    }
    for (int i = 0; i < 8; i++) printf("%a %d\n", out[i], ids[i]);
    simt_context_destroy(ctx);
    return 0;
}
"""


def test_struct_parameters_from_a_c_program(struct_build, tmp_path):
    out, _ = struct_build
    source = tmp_path / "main.c"
    source.write_text(C_STRUCT_PROGRAM)
    exe = tmp_path / "main"
    from simt import runtime
    subprocess.run(["cc", "-std=c11", "-Wall", "-Werror", *runtime.cflags(), f"-I{out}", str(source),
                    "-o", str(exe), *runtime.libs()], check=True, capture_output=True, text=True)
    proc = subprocess.run([str(exe), str(out)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    rows = [line.split() for line in proc.stdout.splitlines()]
    got = {"out": np.array([float.fromhex(a) for a, _ in rows], np.float32),
           "ids": np.array([int(b) for _, b in rows], np.int32)}
    material = K.Material(tint=[[1.0, 2.0], [-1.0, 0.5]], glossy=True, weight=0.125, level=-3, half=1.0)
    body = K.Body(position=[1.5, -2.0, 0.25], mass=3.0, id=7, material=material, flags=9)
    extra = K.Material(tint=[[2.0, 0.0], [0.0, 1.0]], glossy=False, weight=-1.0, level=4, half=0.0)
    inputs = [suite.case.ScalarInput("b", body), suite.case.ScalarInput("scale", np.float32(0.5)),
              suite.case.ScalarInput("extra", extra), K.array_input("out", np.zeros(8, np.float32)),
              K.array_input("ids", np.zeros(8, np.int32))]
    assert K.differing(K.engine_outputs(K.struct_params, inputs, 8, 256, "cpu"), got) == []
    assert got["ids"].tolist() == [7 * i - 3000 + 9 + 4 for i in range(8)]


def test_struct_with_array_fields_from_a_c_program(tmp_path):
    """Array fields travel as simt_array_view (pointer and extents) inside the struct's bytes."""
    out = build_kernel(K.struct_with_array, target="cpu", out_dir=tmp_path / "build")
    layout = json.loads((out / "manifest.json").read_text())["params"][0]["struct"]
    assert [(f["name"], f["kind"], f["offset"]) for f in layout["fields"]] == \
        [("scale", "value", 0), ("data", "array", 8), ("grid", "array", 48)]
    assert (layout["fields"][2]["dtype"], layout["fields"][2]["ndim"], layout["size"]) == ("int32", 2, 88)
    exe = K.compile_c_program(K.C_ARRAY_STRUCT_PROGRAM, out, tmp_path)
    proc = subprocess.run([str(exe), "cpu", str(out)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    got = {"out": np.array([float.fromhex(v) for v in lines[:40]], np.float32)}
    fast, _ = K.array_struct_expected("cpu")
    assert K.differing(fast, got) == []
    messages = dict(line.split(": ", 1) for line in lines[40:])
    where = "kernel 'struct_with_array', parameter 'h'"
    assert messages["null"] == f"{where} (argument 0): field 'grid' holds a null array pointer"
    assert messages["extent"] == f"{where}: field 'grid': extent -5 of dimension 1 is outside [0, 2^31)"
    assert messages["bounds"].startswith("kernel 'struct_with_array': index 10 out of bounds for array 'h.data'")


_PTX_BYTES = {"8": 1, "16": 2, "32": 4, "64": 8}


def _fake_driver(ptx: Path, tmp: Path) -> tuple[list, dict]:
    """The kernel's PTX parameters [(bits, name)] and the environment that makes a program's
    "cuda:0" context use K.FAKE_LIBCUDA, recording its launches in tmp/launch.txt."""
    fake = tmp / "fake"
    fake.mkdir()
    (fake / "libcuda.c").write_text(K.FAKE_LIBCUDA)
    subprocess.run(["cc", "-shared", "-fPIC", "-o", str(fake / "libcuda.so.1"), str(fake / "libcuda.c")],
                   check=True, capture_output=True, text=True)
    params = re.findall(r"\.param \.[a-z]+?(\d+) \w+,?\s+// (\S+)", ptx.read_text())
    return params, {**os.environ, "LD_LIBRARY_PATH": str(fake), "SIMT_FAKE_LAUNCH": str(tmp / "launch.txt"),
                    "SIMT_FAKE_SIZES": ",".join(str(_PTX_BYTES[bits]) for bits, _ in params)}


@needs_cuda_tools
def test_cuda_launch_passes_each_struct_field_as_its_ptx_parameter(tmp_path):
    """The cuda context's launch with no GPU: a stand-in libcuda records the bytes of every
    parameter given to cuLaunchKernel, and each equals the Python struct's field that the
    PTX names for it (``b.material.tint_2``: component 2 of b.material.tint), the odd bool
    byte made 1."""
    out = build_kernel(K.struct_params, target="cuda", arch="sm_90", out_dir=tmp_path / "build")
    program = K.compile_struct_program(out, tmp_path)
    params, env = _fake_driver(out / "struct_params.ptx", tmp_path)
    n = 300
    inputs = K.struct_inputs(n, 3)
    body, scale, extra = (a.value for a in inputs[:3])
    launch = Path(env["SIMT_FAKE_LAUNCH"])
    argv = [str(program), "run", "cuda:0", str(out), str(n), *K.struct_argv(body, scale, extra)]
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=60, env=env)
    assert proc.returncode == 0, proc.stderr
    lines = launch.read_text().splitlines()
    assert lines[0] == f"grid {(n + 255) // 256} 1 1 block 256 1 1"
    values = {"b": body, "scale": scale, "extra": extra}
    checked = 0
    for (bits, name), got in zip(params, lines[1:], strict=True):
        if name in ("out", "ids"):
            continue                                       # device pointers
        if name.endswith(".shape[0]"):
            expected = np.int32(n)
        elif name.startswith("dim["):
            expected = np.int32(n if name == "dim[0]" else 1)
        else:
            first, *path = name.split(".")
            value = values[first]
            for part in path:
                if hasattr(value, part):
                    value = getattr(value, part)
                else:                                      # a component: tint_2
                    field, comp = part.rsplit("_", 1)
                    value = np.asarray(getattr(value, field)).reshape(-1)[int(comp)]
            expected = value
            checked += 1
        assert got == np.asarray(expected).tobytes().hex(), name
    assert checked == 14 + 1 + 8              # Body's scalars, scale, extra's


@needs_cuda_tools
def test_cuda_launch_passes_struct_array_fields_as_pointer_and_extents(tmp_path):
    out = build_kernel(K.struct_with_array, target="cuda", arch="sm_90", out_dir=tmp_path / "build")
    exe = K.compile_c_program(K.C_ARRAY_STRUCT_PROGRAM, out, tmp_path)
    params, env = _fake_driver(out / "struct_with_array.ptx", tmp_path)
    proc = subprocess.run([str(exe), "cuda:0", str(out)], capture_output=True, text=True, timeout=60, env=env)
    assert proc.returncode == 0, proc.stderr
    lines = Path(env["SIMT_FAKE_LAUNCH"]).read_text().splitlines()
    assert len(lines) == 1 + len(params)           # one launch: the null pointer and the bad extent refused
    got = dict(zip((name for _, name in params), lines[1:]))
    assert [name for _, name in params][:6] == ["h.scale", "h.data", "h.data.shape[0]", "h.grid",
                                                 "h.grid.shape[0]", "h.grid.shape[1]"]
    assert got["h.scale"] == np.float32(1.5).tobytes().hex()
    assert [got[f"h.{a}"] for a in ("data.shape[0]", "grid.shape[0]", "grid.shape[1]")] == \
        [np.int32(v).tobytes().hex() for v in (40, 3, 5)]
    pointers = [int.from_bytes(bytes.fromhex(got[a]), "little") for a in ("h.data", "h.grid", "out")]
    assert 0 not in pointers and len(set(pointers)) == 3
