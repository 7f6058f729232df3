// The native getrawmempool reader (snapshot_reader.h) as the JavaScript functions `scanCoreMempool`
// and `scanCoreMempoolFile`.
#pragma once

#include <napi.h>

namespace marshal {

/**
 * scanCoreMempool(bytes: Uint8Array, splitFromBytes?: number): the columns of
 * src/optimizer/snapshot/nativeScan.ts (txids as one Uint8Array of n x 64 ASCII hex bytes, over the
 * reader's own memory), or undefined
 * when the reader gave up. Read in two halves side by side from `splitFromBytes` on (default
 * snapshot::SPLIT_FROM_BYTES; the same result either way).
 */
Napi::Value ScanCoreMempoolJs(const Napi::CallbackInfo& info);

/**
 * scanCoreMempoolFile(path: string, splitFromBytes?: number): the same columns read from the file mapped into memory;
 * undefined when the reader gave up; null when the file was not mapped (missing, empty, gzip, ...):
 * the caller reads it with Node.
 */
Napi::Value ScanCoreMempoolFileJs(const Napi::CallbackInfo& info);

}  // namespace marshal
