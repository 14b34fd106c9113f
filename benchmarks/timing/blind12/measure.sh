#!/usr/bin/env bash
# Measure the twelfth blind set: ../blind/measure.sh with BLIND_SET=blind12 (see there and
# README.md here). Writes blind12.csv, blind12_manifest.csv, blind12.log (and gpu.txt) to DIR.
#
#   PYTHONPATH=. bash benchmarks/timing/blind12/measure.sh DIR              # on the H200
#   PYTHONPATH=. bash benchmarks/timing/blind12/measure.sh DIR --dry-run    # anywhere
BLIND_SET=blind12 exec bash "$(cd "$(dirname "$0")" && pwd)/../blind/measure.sh" "$@"
