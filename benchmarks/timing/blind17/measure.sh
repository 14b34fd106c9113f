#!/usr/bin/env bash
# Measure the seventeenth blind set: ../blind/measure.sh with BLIND_SET=blind17 (see there and
# README.md here). Writes blind17.csv, blind17_manifest.csv, blind17.log (and gpu.txt) to DIR.
#
#   PYTHONPATH=. bash benchmarks/timing/blind17/measure.sh DIR              # on the H200
#   PYTHONPATH=. bash benchmarks/timing/blind17/measure.sh DIR --dry-run    # anywhere
BLIND_SET=blind17 exec bash "$(cd "$(dirname "$0")" && pwd)/../blind/measure.sh" "$@"
