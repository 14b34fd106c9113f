"""Test-wide settings: verify the MIR after every pass. Under pytest-xdist the workers share
the kernel cache: an entry one builds, the others load (simt/sim/fast/cache.py locks each
entry while it is checked, built and sealed)."""
import os

os.environ.setdefault("SIMT_VERIFY_EACH_PASS", "1")

pytest_plugins = ["simt.testing"]   # the simt_gpu marker and the simt_compare fixture
