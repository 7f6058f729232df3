#!/usr/bin/env bash
# `npm run lint:native`: the C++ format check (.clang-format; Debian's `clang-format`, version 14).
set -euo pipefail
cd "$(dirname "$0")/.."
FILES=(native/*.h native/*.cpp)
if ! command -v clang-format >/dev/null 2>&1; then
  echo "lint:native: clang-format is not installed (apt-get install clang-format)" >&2
  exit 1
fi
clang-format --dry-run --Werror "${FILES[@]}"
