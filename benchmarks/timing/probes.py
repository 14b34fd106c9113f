"""The op probes now live in simt.calibrate.probes (``simt calibrate`` runs them); this name stays
for measure_gpu.py and the other scripts here."""
from simt.calibrate.probes import LOOP_PROBE, LOOP_STEPS, PROBES, STEPS, UNROLLS, launches, make_probe  # noqa: F401
