#!/usr/bin/env bash
# Measure the fifteenth blind set: ../blind/measure.sh with BLIND_SET=blind15 (see there and
# README.md here). Writes blind15.csv, blind15_manifest.csv, blind15.log (and gpu.txt) to DIR.
#
#   PYTHONPATH=. bash benchmarks/timing/blind15/measure.sh DIR              # on the H200
#   PYTHONPATH=. bash benchmarks/timing/blind15/measure.sh DIR --dry-run    # anywhere
BLIND_SET=blind15 exec bash "$(cd "$(dirname "$0")" && pwd)/../blind/measure.sh" "$@"
