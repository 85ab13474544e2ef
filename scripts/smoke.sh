#!/usr/bin/env bash
# Set up (what building and running need: scripts/debian-packages.txt),
# build, and run the smoke preset on the default plugins.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup-debian.sh
cmake -S . -B build >/dev/null
cmake --build build -j"$(nproc)"
exec build/bin/bench --preset smoke "$@"
