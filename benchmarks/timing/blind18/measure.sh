#!/usr/bin/env bash
# Measure the eighteenth blind set: ../blind/measure.sh with BLIND_SET=blind18 (see there and
# README.md here). Writes blind18.csv, blind18_manifest.csv, blind18.log (and gpu.txt) to DIR.
#
#   PYTHONPATH=. bash benchmarks/timing/blind18/measure.sh DIR              # on the H200
#   PYTHONPATH=. bash benchmarks/timing/blind18/measure.sh DIR --dry-run    # anywhere
BLIND_SET=blind18 exec bash "$(cd "$(dirname "$0")" && pwd)/../blind/measure.sh" "$@"
