#!/usr/bin/env bash
# Measure the tenth blind set: ../blind/measure.sh with BLIND_SET=blind10 (see there and
# README.md here). Writes blind10.csv, blind10_manifest.csv, blind10.log (and gpu.txt) to DIR.
#
#   PYTHONPATH=. bash benchmarks/timing/blind10/measure.sh DIR              # on the H200
#   PYTHONPATH=. bash benchmarks/timing/blind10/measure.sh DIR --dry-run    # anywhere
BLIND_SET=blind10 exec bash "$(cd "$(dirname "$0")" && pwd)/../blind/measure.sh" "$@"
