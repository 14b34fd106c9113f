"""Warp's surface (16-bit types, bitwise atomics, printf, structs) under the precise engine's
timing model and its sanitizers: the same answers as the fast engine, costs that follow the
conversions a half-precision value needs, initcheck and racecheck on the new types and ops."""
from __future__ import annotations

import numpy as np
import pytest

import simt as wp

N = 64


@wp.kernel
def small_types_and_bit_atomics(h: wp.array[wp.float16], b: wp.array[wp.bfloat16],
                                s: wp.array[wp.int16], u: wp.array[wp.uint16],
                                bits: wp.array[wp.int32], vals: wp.array[wp.int32]):
    i = wp.tid()
    h[i] = h[i] * wp.float16(1.5) + wp.float16(0.25)
    b[i] = b[i] * wp.bfloat16(3.0)
    s[i] = s[i] * wp.int16(300)
    u[i] = u[i] - wp.uint16(7)
    wp.atomic_and(bits, 0, vals[i])
    wp.atomic_or(bits, 1, vals[i])
    wp.atomic_xor(bits, 2, vals[i])
    if i == 0:
        wp.printf("first %d\n", s[i])


def small_type_inputs():
    rng = np.random.default_rng(11)
    vals = rng.integers(-2**31, 2**31 - 1, N, dtype=np.int32)
    return [wp.array(rng.uniform(-8, 8, N).astype(np.float16)),
            wp.array(rng.uniform(-8, 8, N).astype(np.float32), dtype=wp.bfloat16),
            wp.array(rng.integers(-200, 200, N, dtype=np.int16)),
            wp.array(rng.integers(0, 20, N, dtype=np.uint16)),
            wp.array(np.array([-1, 0, 0], dtype=np.int32)), wp.array(vals)]


def test_small_types_bit_atomics_and_printf_under_the_timing_model(capfd):
    runs = {}
    for device in ("cpu:precise", "cpu"):
        args = small_type_inputs()
        r = wp.launch(small_types_and_bit_atomics, N, args, block_dim=32, device=device)
        runs[device] = (r, [a.numpy().copy() for a in args])
    precise, fast = runs["cpu:precise"], runs["cpu"]
    for p, f in zip(precise[1], fast[1]):
        np.testing.assert_array_equal(p.view(np.uint8), f.view(np.uint8))
    vals = small_type_inputs()[5].numpy()
    bits = precise[1][4]
    assert bits[0] == np.bitwise_and.reduce(vals) and bits[1] == np.bitwise_or.reduce(vals)
    assert bits[2] == np.bitwise_xor.reduce(vals)
    assert precise[0].cycles > 0 and precise[0].metrics["smsp__inst_executed.sum"] > 0
    assert capfd.readouterr().out.count("first ") == 2          # once per engine


@wp.kernel
def chain_f32(x: wp.array[float]):
    i = wp.tid()
    v = x[i]
    for r in range(64):
        v = v * 0.5 + 1.0
    x[i] = v


@wp.kernel
def chain_f16(x: wp.array[wp.float16]):
    i = wp.tid()
    v = x[i]
    for r in range(64):
        v = v * wp.float16(0.5) + wp.float16(1.0)
    x[i] = v


def test_half_precision_costs_its_conversions():
    """float16 arithmetic runs in float32 (as on the GPU without packed halves): each
    operation adds the conversions to and from 16 bits, so the same chain takes longer."""
    cycles = {}
    for kernel, dtype in ((chain_f32, float), (chain_f16, wp.float16)):
        x = wp.array(np.ones(32, dtype=np.float32), dtype=dtype)
        cycles[dtype] = wp.launch(kernel, 32, [x], block_dim=32, device="cpu:precise").cycles
        np.testing.assert_allclose(x.numpy().astype(np.float32), 2.0, rtol=1e-3)
    assert cycles[wp.float16] > cycles[float]


# --- sanitizers ------------------------------------------------------------------------------

@wp.kernel
def copy_halves(h: wp.array[wp.float16], b: wp.array[wp.bfloat16], out: wp.array2d[float]):
    i = wp.tid()
    out[i, 0] = float(h[i])
    out[i, 1] = float(b[i])


def test_initcheck_poisons_unwritten_halves_with_nan():
    out = wp.zeros((8, 2))
    r = wp.launch(copy_halves, 8, [wp.empty(8, dtype=wp.float16), wp.empty(8, dtype=wp.bfloat16),
                                   out], check="init")
    assert sorted(r.hazards.array) == ["b", "h"] and (r.hazards["count"] == 8).all()
    assert np.isnan(out.numpy()).all()
    assert all("NaN" in text for text in r.hazards.report)
    h = wp.empty(8, dtype=wp.float16)
    h.numpy()[:4] = 1.0                     # host access counts as writing the whole array
    ok = wp.launch(copy_halves, 8, [h, wp.full(8, 2.0, dtype=wp.bfloat16), out], check="init")
    assert ok.hazards.empty and (out.numpy()[:4] == [1.0, 2.0]).all()


@wp.kernel
def bit_atomics_only(bits: wp.array[wp.int32]):
    i = wp.tid()
    wp.atomic_or(bits, 0, 1 << (i % 31))
    wp.atomic_xor(bits, 1, i)


@wp.kernel
def bit_atomic_and_plain_store(bits: wp.array[wp.int32]):
    i = wp.tid()
    if i == 0:
        bits[0] = 5
    else:
        wp.atomic_and(bits, 0, 7)


def test_racecheck_on_bitwise_atomics():
    bits = wp.zeros(2, dtype=wp.int32)
    assert wp.launch(bit_atomics_only, 256, [bits], check="race").hazards.empty
    assert bits.numpy()[0] == (1 << 31) - 1 and bits.numpy()[1] == np.bitwise_xor.reduce(np.arange(256))
    h = wp.launch(bit_atomic_and_plain_store, 256, [wp.zeros(2, dtype=wp.int32)], check="race").hazards
    assert list(h.check) == ["race"] and h.iloc[0].array == "bits"


# --- structs ---------------------------------------------------------------------------------

@wp.struct
class Field:
    values: wp.array[float]
    scale: float


@wp.struct
class Body:
    pos: wp.vec3
    mass: float


@wp.kernel
def read_field(f: Field, out: wp.array[float]):
    i = wp.tid()
    out[i] = f.values[i] * f.scale


@wp.kernel
def write_field(f: Field):
    i = wp.tid()
    if i < 4:
        f.values[i] = float(i)


@wp.kernel
def write_two_bodies(bodies: wp.array[Body]):
    i = wp.tid()
    if i < 2:
        bodies[i] = Body(wp.vec3(1.0, 2.0, 3.0), 4.0)


@wp.kernel
def read_bodies(bodies: wp.array[Body], out: wp.array[float]):
    i = wp.tid()
    out[i] = bodies[i].pos[1] + bodies[i].mass


@pytest.mark.parametrize("device", ["cpu:precise", "cpu"])
def test_initcheck_follows_arrays_inside_structs(device):
    f = Field()
    f.values, f.scale = wp.empty(8), 2.0
    out = wp.zeros(8)
    wp.launch(write_field, 8, [f], device=device, check="init")
    h = wp.launch(read_field, 8, [f, out], device=device, check="init").hazards
    assert len(h) == 1 and h.iloc[0]["count"] == 4 and h.iloc[0].array == "f.values"
    assert (out.numpy()[:4] == 2.0 * np.arange(4)).all() and np.isnan(out.numpy()[4:]).all()
    g = Field()
    g.values, g.scale = wp.empty(8), 1.0
    wp.launch(write_field, 8, [g], device=device)      # unchecked: counts as writing it all
    assert wp.launch(read_field, 8, [g, out], device=device, check="init").hazards.empty


def test_initcheck_on_arrays_of_structs():
    bodies, out = wp.empty(4, dtype=Body), wp.zeros(4)
    h = wp.launch(read_bodies, 4, [bodies, out], check="init").hazards
    assert set(h.array) == {"bodies.pos", "bodies.mass"} and (h["count"] == 4).all()
    assert np.isnan(out.numpy()).all()
    bodies = wp.empty(4, dtype=Body)
    wp.launch(write_two_bodies, 4, [bodies], check="init")
    h = wp.launch(read_bodies, 4, [bodies, out], check="init").hazards
    assert set(h.array) == {"bodies.pos", "bodies.mass"} and (h["count"] == 2).all()
    assert (out.numpy()[:2] == 6.0).all() and np.isnan(out.numpy()[2:]).all()
    bodies = wp.empty(4, dtype=Body)
    data = bodies.numpy()
    data["pos"], data["mass"] = 1.0, 2.0
    assert wp.launch(read_bodies, 4, [bodies, out], check="init").hazards.empty
    assert (out.numpy() == 3.0).all()


@wp.kernel
def bf16_constants(x: wp.array[wp.bfloat16], lo: wp.array[wp.bfloat16], st: wp.array[wp.bfloat16]):
    i = wp.tid()
    lo[i] = wp.clamp(x[i], wp.bfloat16(-1.0), wp.bfloat16(1.0))   # bfloat16 immediates
    st[i] = wp.step(x[i])


@pytest.mark.parametrize("device", ["cpu:precise", "cpu"])
def test_bfloat16_constants_compile_and_match_numpy(device):
    """bfloat16 immediates pass the MIR verifier (it once asked numpy for the range of the
    uint16 that holds them); the values are exact in bfloat16, so numpy is the oracle."""
    v = np.array([-2.5, -0.5, 0.0, 0.75, 1.5, 3.0], dtype=np.float32)
    x = wp.array(v, dtype=wp.bfloat16)
    lo, st = wp.zeros(v.size, dtype=wp.bfloat16), wp.zeros(v.size, dtype=wp.bfloat16)
    wp.launch(bf16_constants, v.size, [x, lo, st], device=device)
    as_f32 = lambda a: (a.numpy().astype(np.uint32) << 16).view(np.float32)  # noqa: E731
    np.testing.assert_array_equal(as_f32(lo), np.clip(v, -1.0, 1.0))
    np.testing.assert_array_equal(as_f32(st), (v < 0).astype(np.float32))
