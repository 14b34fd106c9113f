"""Test-wide settings: verify the MIR after every pass."""
import os

os.environ.setdefault("SIMT_VERIFY_EACH_PASS", "1")

pytest_plugins = ["simt.testing"]   # the simt_gpu marker and the simt_compare fixture
