#!/usr/bin/env bash
# Measure the thirteenth blind set: ../blind/measure.sh with BLIND_SET=blind13 (see there and
# README.md here). Writes blind13.csv, blind13_manifest.csv, blind13.log (and gpu.txt) to DIR.
#
#   PYTHONPATH=. bash benchmarks/timing/blind13/measure.sh DIR              # on the H200
#   PYTHONPATH=. bash benchmarks/timing/blind13/measure.sh DIR --dry-run    # anywhere
BLIND_SET=blind13 exec bash "$(cd "$(dirname "$0")" && pwd)/../blind/measure.sh" "$@"
