#!/usr/bin/env bash
# Measure the third blind set: ../blind/measure.sh with BLIND_SET=blind3 (see there and
# README.md here). Writes blind3.csv, blind3_manifest.csv, blind3.log (and gpu.txt) to DIR.
#
#   PYTHONPATH=. bash benchmarks/timing/blind3/measure.sh DIR              # on the H200
#   PYTHONPATH=. bash benchmarks/timing/blind3/measure.sh DIR --dry-run    # anywhere
BLIND_SET=blind3 exec bash "$(cd "$(dirname "$0")" && pwd)/../blind/measure.sh" "$@"
