// The incremental engine (incremental.h) as the JavaScript class `IncrementalEngine`.
#pragma once

#include <napi.h>

namespace marshal {

/** The class's constructor, with methods apply(diff), build(options, full, withV30), size(), clear(). */
Napi::Function DefineIncrementalEngine(Napi::Env env);

}  // namespace marshal
