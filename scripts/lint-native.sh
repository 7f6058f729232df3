#!/usr/bin/env bash
# `npm run lint:native`: the C++ format check (.clang-format; Debian's `clang-format`, version 14).
# Only the files formatted so far are checked: native/ is edited on other branches at the same time,
# so it is formatted in one go after they merge. The lead then runs scripts/format-native.sh on
# main and widens FILES to native/*.h native/*.cpp.
set -euo pipefail
cd "$(dirname "$0")/.."
FILES=(
  native/addon.cpp
  native/marshal.h native/marshal.cpp
  native/engine_wrap.h native/engine_wrap.cpp
  native/napi_guard.h
  native/option_ranges.h
  native/graph.cpp
  native/baseline_v30.cpp
)
if ! command -v clang-format >/dev/null 2>&1; then
  echo "lint:native: clang-format is not installed (apt-get install clang-format)" >&2
  exit 1
fi
clang-format --dry-run --Werror "${FILES[@]}"
