#!/usr/bin/env bash
# Measure the fourth blind set: ../blind/measure.sh with BLIND_SET=blind4 (see there and
# README.md here). Writes blind4.csv, blind4_manifest.csv, blind4.log (and gpu.txt) to DIR.
#
#   PYTHONPATH=. bash benchmarks/timing/blind4/measure.sh DIR              # on the H200
#   PYTHONPATH=. bash benchmarks/timing/blind4/measure.sh DIR --dry-run    # anywhere
BLIND_SET=blind4 exec bash "$(cd "$(dirname "$0")" && pwd)/../blind/measure.sh" "$@"
