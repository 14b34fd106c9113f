#!/usr/bin/env bash
# Measure the nineteenth blind set: ../blind/measure.sh with BLIND_SET=blind19 (see there and
# README.md here). Writes blind19.csv, blind19_manifest.csv, blind19.log (and gpu.txt) to DIR.
#
#   PYTHONPATH=. bash benchmarks/timing/blind19/measure.sh DIR              # on the H200
#   PYTHONPATH=. bash benchmarks/timing/blind19/measure.sh DIR --dry-run    # anywhere
BLIND_SET=blind19 exec bash "$(cd "$(dirname "$0")" && pwd)/../blind/measure.sh" "$@"
