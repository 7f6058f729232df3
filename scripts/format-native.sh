#!/usr/bin/env bash
# Formats every C++ file of native/ with .clang-format (clang-format 14, Debian's `clang-format`).
# `npm run lint:native` checks the files listed there; once all of native/ is formatted, the list
# becomes native/*.{h,cpp}.
set -euo pipefail
cd "$(dirname "$0")/.."
clang-format -i native/*.h native/*.cpp
