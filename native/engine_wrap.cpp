// The incremental engine as a JavaScript class: one per thread that owns it (see engine_wrap.h).
#include "engine_wrap.h"

#include <chrono>

#include "incremental.h"
#include "marshal.h"
#include "napi_guard.h"

namespace marshal {

namespace {

class EngineWrap : public Napi::ObjectWrap<EngineWrap>
{
    opt::IncrementalEngine m_engine;

public:
    static Napi::Function Define(Napi::Env env)
    {
        return DefineClass(env, "IncrementalEngine",
                           {InstanceMethod<&EngineWrap::Apply>("apply"), InstanceMethod<&EngineWrap::Build>("build"),
                            InstanceMethod<&EngineWrap::Size>("size"), InstanceMethod<&EngineWrap::Clear>("clear")});
    }
    explicit EngineWrap(const Napi::CallbackInfo& info) : Napi::ObjectWrap<EngineWrap>(info) {}

    /** apply(diff): removals, then upserts; returns the engine's size. */
    Napi::Value Apply(const Napi::CallbackInfo& info)
    {
        Napi::Env env = info.Env();
        return Guard(env, [&]() -> Napi::Value {
            const opt::DiffView d = ReadDiff(info[0]);
            if (env.IsExceptionPending()) return env.Undefined();
            m_engine.Apply(d);
            return Napi::Number::New(env, m_engine.Size());
        });
    }

    /** build(options, full, withV30): one cycle over the engine's mempool. */
    Napi::Value Build(const Napi::CallbackInfo& info)
    {
        Napi::Env env = info.Env();
        return Guard(env, [&]() -> Napi::Value {
            opt::Options o = ReadOptions(info[0]);
            const bool full = ReadFlag(info[1]);
            o.skip_v30 = !ReadFlag(info[2]);
            if (env.IsExceptionPending()) return env.Undefined();
            const opt::IncrementalResult r = m_engine.Build(o, full);
            const auto started = std::chrono::steady_clock::now();
            Napi::Object out = IncrementalResultObject(env, r);
            out.Set("finishMs", r.finish_ms);
            out.Set("marshalMs", std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count());
            return out;
        });
    }

    Napi::Value Size(const Napi::CallbackInfo& info) { return Napi::Number::New(info.Env(), m_engine.Size()); }

    Napi::Value Clear(const Napi::CallbackInfo& info)
    {
        m_engine.Clear();
        return info.Env().Undefined();
    }
};

}  // namespace

Napi::Function DefineIncrementalEngine(Napi::Env env) { return EngineWrap::Define(env); }

}  // namespace marshal
