#!/usr/bin/env bash
# Measure the sixth blind set: ../blind/measure.sh with BLIND_SET=blind6 (see there and
# README.md here). Writes blind6.csv, blind6_manifest.csv, blind6.log (and gpu.txt) to DIR.
#
#   PYTHONPATH=. bash benchmarks/timing/blind6/measure.sh DIR              # on the H200
#   PYTHONPATH=. bash benchmarks/timing/blind6/measure.sh DIR --dry-run    # anywhere
BLIND_SET=blind6 exec bash "$(cd "$(dirname "$0")" && pwd)/../blind/measure.sh" "$@"
