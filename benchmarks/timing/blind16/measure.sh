#!/usr/bin/env bash
# Measure the sixteenth blind set: ../blind/measure.sh with BLIND_SET=blind16 (see there and
# README.md here). Writes blind16.csv, blind16_manifest.csv, blind16.log (and gpu.txt) to DIR.
#
#   PYTHONPATH=. bash benchmarks/timing/blind16/measure.sh DIR              # on the H200
#   PYTHONPATH=. bash benchmarks/timing/blind16/measure.sh DIR --dry-run    # anywhere
BLIND_SET=blind16 exec bash "$(cd "$(dirname "$0")" && pwd)/../blind/measure.sh" "$@"
