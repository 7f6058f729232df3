// N-API marshalling: JavaScript arguments to the optimizer's views and options (typed arrays in as
// std::span views, no copy), and results back as new JavaScript objects and typed arrays. Readers
// throw opt::InputError naming the bad argument; call them inside Guard (napi_guard.h).
#pragma once

#include <napi.h>

#include <vector>

#include "incremental.h"
#include "optimizer.h"

namespace marshal {

/** The mempool arrays of `buildTemplates(input, ...)` (views of the caller's typed arrays). */
opt::InputView ReadInput(const Napi::Value& value);
/** The options object; absent options keep Core's defaults, present ones must be in their range
 *  (option_ranges.h, the table the TypeScript side checks too). */
opt::Options ReadOptions(const Napi::Value& value);
/** One step of the incremental engine (views of the caller's typed arrays). */
opt::DiffView ReadDiff(const Napi::Value& value);
/** True only for the boolean true (anything else, absent included, is false). */
bool ReadFlag(const Napi::Value& value);

/** A full cycle's result (native.ts `OptimizerResult`). */
Napi::Object ResultObject(Napi::Env env, const opt::Result& r);
/** An incremental cycle's result: the engine keeps the linearization and gives chunk rates itself. */
Napi::Object IncrementalResultObject(Napi::Env env, const opt::IncrementalResult& ir);
/** `inspectClusters`' per-cluster details. */
Napi::Array ClusterDetailsArray(Napi::Env env, const std::vector<opt::ClusterDetail>& details);

}  // namespace marshal
