#!/usr/bin/env bash
# Measure the seventh blind set: ../blind/measure.sh with BLIND_SET=blind7 (see there and
# README.md here). Writes blind7.csv, blind7_manifest.csv, blind7.log (and gpu.txt) to DIR.
#
#   PYTHONPATH=. bash benchmarks/timing/blind7/measure.sh DIR              # on the H200
#   PYTHONPATH=. bash benchmarks/timing/blind7/measure.sh DIR --dry-run    # anywhere
BLIND_SET=blind7 exec bash "$(cd "$(dirname "$0")" && pwd)/../blind/measure.sh" "$@"
