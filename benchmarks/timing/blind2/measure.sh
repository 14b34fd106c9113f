#!/usr/bin/env bash
# Measure the second blind set: ../blind/measure.sh with BLIND_SET=blind2 (see there and
# README.md here). Writes blind2.csv, blind2_manifest.csv, blind2.log (and gpu.txt) to DIR.
#
#   PYTHONPATH=. bash benchmarks/timing/blind2/measure.sh DIR              # on the H200
#   PYTHONPATH=. bash benchmarks/timing/blind2/measure.sh DIR --dry-run    # anywhere
BLIND_SET=blind2 exec bash "$(cd "$(dirname "$0")" && pwd)/../blind/measure.sh" "$@"
