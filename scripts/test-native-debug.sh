#!/usr/bin/env bash
# The native optimizer's tests under its debug build: OPTIMIZER_DEBUG (every OPT_ASSUME checked),
# AddressSanitizer and UndefinedBehaviorSanitizer (npm run build:native:debug, build/Debug).
#
# Node itself is not built with ASan, so the ASan runtime must be loaded before anything else:
# LD_PRELOAD of the compiler's libasan (its libubsan comes in as a dependency of the addon).
# Leak detection is off: Node does not free everything at exit, which is not ours to report.
# Any ASan or UBSan report aborts the process, which fails the test run.
#
# Runs test/native (including the randomized comparison against the TypeScript oracle with a
# fresh seed and more rounds; the seed is printed so a failure can be replayed with
# NATIVE_FUZZ_SEED=<seed>). The release build in build/Release is left alone.
#
# Usage: scripts/test-native-debug.sh [vitest args...]   (npm run test:native:debug)
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -d /usr/include/node ]; then export npm_config_nodedir=/usr; fi

npm run build:native:debug --silent >/dev/null

CXX="${CXX:-g++}"
libasan="$("$CXX" -print-file-name=libasan.so)"
if [ ! -e "$libasan" ]; then
  echo "test-native-debug: libasan not found ($CXX -print-file-name=libasan.so gave '$libasan')" >&2
  exit 1
fi

seed="${NATIVE_FUZZ_SEED:-$(( (RANDOM << 15) | RANDOM ))}"
echo "test-native-debug: ASan/UBSan build, NATIVE_FUZZ_SEED=$seed"

export OPTIMIZER_NATIVE_BUILD=Debug
export NATIVE_FUZZ_SEED="$seed"
export NATIVE_FUZZ_ROUNDS="${NATIVE_FUZZ_ROUNDS:-150}"
export ASAN_OPTIONS="detect_leaks=0:abort_on_error=1:halt_on_error=1:${ASAN_OPTIONS:-}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:${UBSAN_OPTIONS:-}"
# Only the test processes get the preload (vitest's forks inherit it).
LD_PRELOAD="$libasan" npx vitest run --pool=forks test/native "$@"
