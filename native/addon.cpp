// The addon's contents: what JavaScript can call (src/optimizer/binding/native.ts types it). Each entry
// reads its arguments (marshal.h), calls plain C++ (optimizer.h, incremental.h) and converts the
// result back, inside Guard (napi_guard.h): no C++ exception crosses into JavaScript.
#include <napi.h>

#include <algorithm>
#include <cstdint>

#include "engine_wrap.h"
#include "malloc_tuning.h"
#include "marshal.h"
#include "merkle_wrap.h"
#include "napi_guard.h"
#include "optimizer.h"
#include "snapshot_wrap.h"

namespace {

#ifdef OPTIMIZER_DEBUG
constexpr const char* VERSION = "1.0.0+debug";  // assertions on (and ASan/UBSan in build:native:debug)
#else
constexpr const char* VERSION = "1.0.0";
#endif

/** buildTemplates(input, options): one full optimizer cycle. */
Napi::Value BuildTemplatesJs(const Napi::CallbackInfo& info)
{
    Napi::Env env = info.Env();
    return marshal::Guard(env, [&]() -> Napi::Value {
        const opt::InputView in = marshal::ReadInput(info[0]);
        const opt::Options o = marshal::ReadOptions(info[1]);
        if (env.IsExceptionPending()) return env.Undefined();
        return marshal::ResultObject(env, opt::BuildTemplates(in, o));
    });
}

/** inspectClusters(input, options): each cluster's linearization, chunks and optimality (tests). */
Napi::Value InspectClustersJs(const Napi::CallbackInfo& info)
{
    Napi::Env env = info.Env();
    return marshal::Guard(env, [&]() -> Napi::Value {
        return marshal::ClusterDetailsArray(env, opt::InspectClusters(marshal::ReadInput(info[0]), marshal::ReadOptions(info[1])));
    });
}

/** selfCheck(input, options, every): every SanityCheck; '' when all pass (tests). */
Napi::Value SelfCheckJs(const Napi::CallbackInfo& info)
{
    Napi::Env env = info.Env();
    return marshal::Guard(env, [&]() -> Napi::Value {
        int64_t every = 1;
        if (info[2].IsNumber()) every = std::max<int64_t>(1, info[2].As<Napi::Number>().Int64Value());
        return Napi::String::New(env, opt::SelfCheck(marshal::ReadInput(info[0]), marshal::ReadOptions(info[1]), static_cast<unsigned>(every)));
    });
}

Napi::Value VersionJs(const Napi::CallbackInfo& info) { return Napi::String::New(info.Env(), VERSION); }

Napi::Object Init(Napi::Env env, Napi::Object exports)
{
    opt::KeepFreedMemoryForNextCycle();
    exports.Set("buildTemplates", Napi::Function::New(env, BuildTemplatesJs, "buildTemplates"));
    exports.Set("inspectClusters", Napi::Function::New(env, InspectClustersJs, "inspectClusters"));
    exports.Set("selfCheck", Napi::Function::New(env, SelfCheckJs, "selfCheck"));
    exports.Set("version", Napi::Function::New(env, VersionJs, "version"));
    exports.Set("IncrementalEngine", marshal::DefineIncrementalEngine(env));
    exports.Set("scanCoreMempool", Napi::Function::New(env, marshal::ScanCoreMempoolJs, "scanCoreMempool"));
    exports.Set("scanCoreMempoolFile", Napi::Function::New(env, marshal::ScanCoreMempoolFileJs, "scanCoreMempoolFile"));
    exports.Set("merkleRoot", Napi::Function::New(env, marshal::MerkleRootJs, "merkleRoot"));  // merkle_wrap.h
    return exports;
}

}  // namespace

NODE_API_MODULE(optimizer, Init)
