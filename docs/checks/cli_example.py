"""A program with a race, for `simt run --check all docs/checks/cli_example.py`."""
import numpy as np

import simt as wp


@wp.kernel
def neighbours(x: wp.array(dtype=float), out: wp.array(dtype=float)):
    s = wp.shared.array(shape=(128,), dtype=float)
    t = wp.thread_idx()
    s[t] = x[wp.tid()]
    out[wp.tid()] = s[(t + 1) % 128]        # the barrier before this read is missing


if __name__ == "__main__":
    x = wp.array(np.arange(256, dtype=np.float32))
    out = wp.zeros(256)
    wp.launch(neighbours, dim=256, inputs=[x, out], block_dim=128)
    print("out[:4] =", out.numpy()[:4])
