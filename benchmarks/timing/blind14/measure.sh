#!/usr/bin/env bash
# Measure the fourteenth blind set: ../blind/measure.sh with BLIND_SET=blind14 (see there and
# README.md here). Writes blind14.csv, blind14_manifest.csv, blind14.log (and gpu.txt) to DIR.
#
#   PYTHONPATH=. bash benchmarks/timing/blind14/measure.sh DIR              # on the H200
#   PYTHONPATH=. bash benchmarks/timing/blind14/measure.sh DIR --dry-run    # anywhere
BLIND_SET=blind14 exec bash "$(cd "$(dirname "$0")" && pwd)/../blind/measure.sh" "$@"
