#!/usr/bin/env bash
# Formats every C++ file of native/ with .clang-format (clang-format 14, Debian's `clang-format`).
set -euo pipefail
cd "$(dirname "$0")/.."
clang-format -i native/*.h native/*.cpp
