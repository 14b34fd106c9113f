#!/usr/bin/env bash
# Measure the ninth blind set: ../blind/measure.sh with BLIND_SET=blind9 (see there and
# README.md here). Writes blind9.csv, blind9_manifest.csv, blind9.log (and gpu.txt) to DIR.
#
#   PYTHONPATH=. bash benchmarks/timing/blind9/measure.sh DIR              # on the H200
#   PYTHONPATH=. bash benchmarks/timing/blind9/measure.sh DIR --dry-run    # anywhere
BLIND_SET=blind9 exec bash "$(cd "$(dirname "$0")" && pwd)/../blind/measure.sh" "$@"
