#!/usr/bin/env bash
# Measure the fifth blind set: ../blind/measure.sh with BLIND_SET=blind5 (see there and
# README.md here). Writes blind5.csv, blind5_manifest.csv, blind5.log (and gpu.txt) to DIR.
#
#   PYTHONPATH=. bash benchmarks/timing/blind5/measure.sh DIR              # on the H200
#   PYTHONPATH=. bash benchmarks/timing/blind5/measure.sh DIR --dry-run    # anywhere
BLIND_SET=blind5 exec bash "$(cd "$(dirname "$0")" && pwd)/../blind/measure.sh" "$@"
