#!/usr/bin/env bash
# Measure the eighth blind set: ../blind/measure.sh with BLIND_SET=blind8 (see there and
# README.md here). Writes blind8.csv, blind8_manifest.csv, blind8.log (and gpu.txt) to DIR.
#
#   PYTHONPATH=. bash benchmarks/timing/blind8/measure.sh DIR              # on the H200
#   PYTHONPATH=. bash benchmarks/timing/blind8/measure.sh DIR --dry-run    # anywhere
BLIND_SET=blind8 exec bash "$(cd "$(dirname "$0")" && pwd)/../blind/measure.sh" "$@"
