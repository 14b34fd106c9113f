#!/usr/bin/env bash
# Measure the eleventh blind set: ../blind/measure.sh with BLIND_SET=blind11 (see there and
# README.md here). Writes blind11.csv, blind11_manifest.csv, blind11.log (and gpu.txt) to DIR.
#
#   PYTHONPATH=. bash benchmarks/timing/blind11/measure.sh DIR              # on the H200
#   PYTHONPATH=. bash benchmarks/timing/blind11/measure.sh DIR --dry-run    # anywhere
BLIND_SET=blind11 exec bash "$(cd "$(dirname "$0")" && pwd)/../blind/measure.sh" "$@"
