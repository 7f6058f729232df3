// The native getrawmempool reader (snapshot_reader.h) as the JavaScript function `scanCoreMempool`.
#pragma once

#include <napi.h>

namespace marshal {

/**
 * scanCoreMempool(bytes: Uint8Array): the columns of src/optimizer/snapshot/nativeScan.ts
 * (txids as one string of n x 64 hex characters), or undefined when the reader gave up.
 */
Napi::Value ScanCoreMempoolJs(const Napi::CallbackInfo& info);

}  // namespace marshal
