// N-API bindings only: typed arrays in as std::span views, plain C++ call, results copied into new
// typed arrays. The one try/catch of the module is here: InputError becomes a JavaScript Error with
// code ERR_OPTIMIZER_<NAME>; std::bad_alloc ERR_OPTIMIZER_OUT_OF_MEMORY; anything else
// ERR_OPTIMIZER_INTERNAL. No C++ exception crosses into JavaScript.
#include <napi.h>

#include <cmath>
#include <cstring>
#include <new>
#include <span>
#include <string>

#include "incremental.h"
#include "optimizer.h"

namespace {

#ifdef OPTIMIZER_DEBUG
constexpr const char* VERSION = "1.0.0+debug";  // assertions on (and ASan/UBSan in build:native:debug)
#else
constexpr const char* VERSION = "1.0.0";
#endif

Napi::Value Throw(Napi::Env env, const std::string& code, const std::string& message)
{
    if (env.IsExceptionPending()) return env.Undefined();  // e.g. a throwing getter on the input
    Napi::Error err = Napi::Error::New(env, message);
    err.Set("code", Napi::String::New(env, "ERR_OPTIMIZER_" + code));
    err.ThrowAsJavaScriptException();
    return env.Undefined();
}

/** Read obj[name] as a typed array of the expected type (empty span when optional and absent). */
template <typename T>
std::span<const T> ReadArray(const Napi::Object& obj, const char* name, napi_typedarray_type type, bool optional)
{
    const Napi::Value v = obj.Get(name);
    if (v.IsUndefined() && optional) return {};
    if (!v.IsTypedArray() || v.As<Napi::TypedArray>().TypedArrayType() != type) {
        throw opt::InputError(opt::ErrorCode::INVALID_ARGUMENT, std::string("input.") + name + " must be a " +
                                                                    (type == napi_float64_array ? "Float64Array" : "Uint32Array"));
    }
    auto arr = v.As<Napi::TypedArrayOf<T>>();
    return {arr.Data(), arr.ElementLength()};
}

/** Read options[name] as an integer in [lo, hi] (kept when absent). */
void ReadInt(const Napi::Object& obj, const char* name, int64_t lo, int64_t hi, int64_t& out)
{
    const Napi::Value v = obj.Get(name);
    if (v.IsUndefined()) return;
    const double d = v.IsNumber() ? v.As<Napi::Number>().DoubleValue() : NAN;
    if (!std::isfinite(d) || d != std::floor(d) || d < static_cast<double>(lo) || d > static_cast<double>(hi)) {
        throw opt::InputError(opt::ErrorCode::INVALID_ARGUMENT, std::string("options.") + name + " must be an integer in [" +
                                                                    std::to_string(lo) + ", " + std::to_string(hi) + "]");
    }
    out = static_cast<int64_t>(d);
}

opt::InputView ReadInput(const Napi::Value& value)
{
    if (!value.IsObject()) throw opt::InputError(opt::ErrorCode::INVALID_ARGUMENT, "input must be an object");
    const auto obj = value.As<Napi::Object>();
    opt::InputView in;
    in.fee = ReadArray<double>(obj, "feeSat", napi_float64_array, false);
    in.weight = ReadArray<uint32_t>(obj, "weightWu", napi_uint32_array, false);
    in.sigops = ReadArray<uint32_t>(obj, "sigopCost", napi_uint32_array, true);
    in.parent_offsets = ReadArray<uint32_t>(obj, "parentOffsets", napi_uint32_array, false);
    in.parent_indices = ReadArray<uint32_t>(obj, "parentIndices", napi_uint32_array, false);
    in.txid_rank = ReadArray<uint32_t>(obj, "txidRank", napi_uint32_array, false);
    in.warm_order = ReadArray<uint32_t>(obj, "warmOrder", napi_uint32_array, true);
    return in;
}

opt::Options ReadOptions(const Napi::Value& value)
{
    opt::Options o;
    if (value.IsUndefined() || value.IsNull()) return o;
    if (!value.IsObject()) throw opt::InputError(opt::ErrorCode::INVALID_ARGUMENT, "options must be an object");
    const auto obj = value.As<Napi::Object>();
    constexpr int64_t MAX_SAFE = 9007199254740991LL;
    ReadInt(obj, "weightLimitWu", 1, 4'000'000'000LL, o.weight_limit);
    ReadInt(obj, "coinbaseReserveWu", 0, 4'000'000'000LL, o.coinbase_reserve);
    ReadInt(obj, "maxSigopCost", 1, 4'000'000'000LL, o.max_sigop_cost);
    ReadInt(obj, "coinbaseSigopCost", 0, 4'000'000'000LL, o.coinbase_sigops);
    ReadInt(obj, "maxTxCount", 0, 4'000'000'000LL, o.max_tx_count);
    ReadInt(obj, "projectedBlocks", 1, 1000, o.projected_blocks);
    ReadInt(obj, "tailWindowPct", 0, 1'000'000, o.tail_window_pct);
    ReadInt(obj, "threads", 1, 2, o.threads);
    int64_t v = static_cast<int64_t>(o.linearize_budget);
    ReadInt(obj, "linearizeBudget", 0, MAX_SAFE, v);
    o.linearize_budget = static_cast<uint64_t>(v);
    v = static_cast<int64_t>(o.linearize_extra_budget);
    ReadInt(obj, "linearizeExtraBudget", 0, MAX_SAFE, v);
    o.linearize_extra_budget = static_cast<uint64_t>(v);
    v = static_cast<int64_t>(o.tail_search_budget);
    ReadInt(obj, "tailSearchBudget", 0, MAX_SAFE, v);
    o.tail_search_budget = static_cast<uint64_t>(v);
    v = static_cast<int64_t>(o.projected_search_budget);
    ReadInt(obj, "projectedSearchBudget", 0, MAX_SAFE, v);
    o.projected_search_budget = static_cast<uint64_t>(v);
    v = 0;
    ReadInt(obj, "seed", 0, MAX_SAFE, v);
    o.seed = static_cast<uint64_t>(v);
    const Napi::Value rate = obj.Get("minFeeRateSatVb");
    if (!rate.IsUndefined()) {
        const double d = rate.IsNumber() ? rate.As<Napi::Number>().DoubleValue() : NAN;
        if (!std::isfinite(d) || d < 0 || d > 1e9) {
            throw opt::InputError(opt::ErrorCode::INVALID_ARGUMENT, "options.minFeeRateSatVb must be a number in [0, 1e9]");
        }
        o.min_fee_rate_sat_kvb = std::llround(d * 1000);  // sat/vB -> sat/kvB (0.001 sat/vB resolution)
    }
    return o;
}

template <typename T, typename TA>
TA Copy(Napi::Env env, std::span<const T> v)
{
    TA arr = TA::New(env, v.size());
    if (!v.empty()) std::memcpy(arr.Data(), v.data(), v.size() * sizeof(T));
    return arr;
}

template <typename T, typename TA>
TA Copy(Napi::Env env, const std::vector<T>& v)
{
    return Copy<T, TA>(env, std::span<const T>(v));
}

Napi::Object SelectionObject(Napi::Env env, const opt::Selection& s)
{
    Napi::Object o = Napi::Object::New(env);
    o.Set("indices", Copy<uint32_t, Napi::Uint32Array>(env, s.txs));
    o.Set("txCount", Napi::Number::New(env, static_cast<double>(s.txs.size())));
    o.Set("feeSat", Napi::Number::New(env, static_cast<double>(s.fee)));
    o.Set("weightWu", Napi::Number::New(env, static_cast<double>(s.weight)));
    o.Set("adjustedWeightWu", Napi::Number::New(env, static_cast<double>(s.adj_weight)));
    o.Set("sigopCost", Napi::Number::New(env, static_cast<double>(s.sigops)));
    return o;
}

/** The result as JavaScript; `engine`: without the per-tx chunk fee/weight and the linearization
 *  (the incremental engine keeps the linearization and gives chunk rates itself). */
Napi::Object ResultObject(Napi::Env env, const opt::Result& r, bool engine = false)
{
    auto num = [&](double d) { return Napi::Number::New(env, d); };
    Napi::Object o = Napi::Object::New(env);
    o.Set("optimized", SelectionObject(env, r.optimized));
    o.Set("baselineV31", SelectionObject(env, r.v31));
    o.Set("baselineV30", SelectionObject(env, r.v30));
    o.Set("v31WithinRequestLimits", Napi::Boolean::New(env, r.v31_within_limits));
    Napi::Object ub = Napi::Object::New(env);
    ub.Set("feeSat", num(static_cast<double>(r.bound.fee)));
    ub.Set("lpFeeSat", num(static_cast<double>(r.bound.lp_fee)));
    ub.Set("exact", Napi::Boolean::New(env, r.bound.exact));
    ub.Set("relaxedClusters", num(r.bound.relaxed_clusters));
    ub.Set("solved", Napi::Boolean::New(env, r.bound.solved));
    ub.Set("freeClusters", num(r.bound.free_clusters));
    ub.Set("searchNodes", num(static_cast<double>(r.bound.search_nodes)));
    o.Set("upperBound", ub);
    if (!engine) {
        o.Set("txChunkFeeSat", Copy<double, Napi::Float64Array>(env, r.tx_chunk_fee));
        o.Set("txChunkWeightWu", Copy<uint32_t, Napi::Uint32Array>(env, r.tx_chunk_weight));
    }
    o.Set("txProjectedBlock", Copy<int32_t, Napi::Int32Array>(env, r.tx_block));
    Napi::Array blocks = Napi::Array::New(env, r.blocks.size());
    for (uint32_t b = 0; b < r.blocks.size(); ++b) {
        const auto& s = r.blocks[b];
        Napi::Object bo = Napi::Object::New(env);
        bo.Set("txCount", num(s.tx_count));
        bo.Set("feeSat", num(static_cast<double>(s.fee)));
        bo.Set("weightWu", num(static_cast<double>(s.weight)));
        bo.Set("minFeeRateSatVb", num(s.min_rate));
        bo.Set("medianFeeRateSatVb", num(s.median_rate));
        bo.Set("maxFeeRateSatVb", num(s.max_rate));
        blocks.Set(b, bo);
    }
    o.Set("projectedBlocks", blocks);
    if (!engine) o.Set("linearization", Copy<uint32_t, Napi::Uint32Array>(env, r.linearization));
    Napi::Object cl = Napi::Object::New(env);
    cl.Set("count", num(r.cluster_count));
    cl.Set("largest", num(r.largest));
    cl.Set("optimalCount", num(r.optimal_count));
    cl.Set("over64Count", num(r.over64_count));
    cl.Set("linearizeCost", num(static_cast<double>(r.linearize_cost)));
    cl.Set("chunkCount", num(r.chunk_count));
    cl.Set("realWeightRelinearized", num(r.real_relinearized));
    cl.Set("reusedCount", num(r.reused_count));
    o.Set("clusters", cl);
    Napi::Object ts = Napi::Object::New(env);
    ts.Set("nodes", num(static_cast<double>(r.tail.nodes)));
    ts.Set("complete", Napi::Boolean::New(env, r.tail.complete));
    ts.Set("windowChunks", num(r.tail.window_chunks));
    ts.Set("greedyFeeSat", num(static_cast<double>(r.tail.greedy_fee)));
    ts.Set("improvedSat", num(static_cast<double>(r.tail.improved_sat)));
    ts.Set("usedBaselineV31", Napi::Boolean::New(env, r.tail.used_incumbent));
    ts.Set("sigopsBinding", Napi::Boolean::New(env, r.tail.sigops_binding));
    ts.Set("projectedNodes", num(static_cast<double>(r.projected_search_nodes)));
    o.Set("tailSearch", ts);
    Napi::Object tm = Napi::Object::New(env);
    const auto& t = r.timings;
    for (auto [name, ms] : {std::pair{"validate", t.validate}, {"clusters", t.clusters}, {"linearize", t.linearize},
                            {"chunk", t.chunk}, {"baselines", t.baselines}, {"optimized", t.optimized},
                            {"bound", t.bound}, {"projected", t.projected}, {"total", t.total}}) {
        tm.Set(name, num(ms));
    }
    o.Set("timingsMs", tm);
    return o;
}

/** Run f, turning any C++ exception into a pending JavaScript exception. */
template <typename F>
Napi::Value Guard(Napi::Env env, F&& f)
{
    try {
        return f();
    } catch (const opt::InputError& e) {
        return Throw(env, opt::ErrorCodeName(e.Code()), e.what());
    } catch (const std::bad_alloc&) {
        return Throw(env, "OUT_OF_MEMORY", "the optimizer ran out of memory");
    } catch (const std::exception& e) {
        return Throw(env, "INTERNAL", std::string("internal optimizer error: ") + e.what());
    } catch (...) {
        return Throw(env, "INTERNAL", "internal optimizer error");
    }
}

Napi::Value BuildTemplatesJs(const Napi::CallbackInfo& info)
{
    Napi::Env env = info.Env();
    return Guard(env, [&]() -> Napi::Value {
        const opt::InputView in = ReadInput(info[0]);
        const opt::Options o = ReadOptions(info[1]);
        if (env.IsExceptionPending()) return env.Undefined();
        return ResultObject(env, opt::BuildTemplates(in, o));
    });
}

Napi::Value InspectClustersJs(const Napi::CallbackInfo& info)
{
    Napi::Env env = info.Env();
    return Guard(env, [&]() -> Napi::Value {
        const auto details = opt::InspectClusters(ReadInput(info[0]), ReadOptions(info[1]));
        Napi::Array out = Napi::Array::New(env, details.size());
        for (uint32_t c = 0; c < details.size(); ++c) {
            Napi::Object d = Napi::Object::New(env);
            d.Set("linearization", Copy<uint32_t, Napi::Uint32Array>(env, details[c].txs));
            d.Set("chunkSizes", Copy<uint32_t, Napi::Uint32Array>(env, details[c].chunk_sizes));
            d.Set("optimal", Napi::Boolean::New(env, details[c].optimal));
            d.Set("cost", Napi::Number::New(env, static_cast<double>(details[c].cost)));
            out.Set(c, d);
        }
        return out;
    });
}

Napi::Value SelfCheckJs(const Napi::CallbackInfo& info)
{
    Napi::Env env = info.Env();
    return Guard(env, [&]() -> Napi::Value {
        int64_t every = 1;
        if (info[2].IsNumber()) every = std::max<int64_t>(1, info[2].As<Napi::Number>().Int64Value());
        return Napi::String::New(env, opt::SelfCheck(ReadInput(info[0]), ReadOptions(info[1]), static_cast<unsigned>(every)));
    });
}

opt::DiffView ReadDiff(const Napi::Value& value)
{
    if (!value.IsObject()) throw opt::InputError(opt::ErrorCode::INVALID_ARGUMENT, "diff must be an object");
    const auto obj = value.As<Napi::Object>();
    opt::DiffView d;
    d.removed = ReadArray<uint32_t>(obj, "removed", napi_uint32_array, false);
    d.slots = ReadArray<uint32_t>(obj, "slots", napi_uint32_array, false);
    d.fee = ReadArray<double>(obj, "feeSat", napi_float64_array, false);
    d.weight = ReadArray<uint32_t>(obj, "weightWu", napi_uint32_array, false);
    d.sigops = ReadArray<uint32_t>(obj, "sigopCost", napi_uint32_array, true);
    d.keys = ReadArray<uint32_t>(obj, "keys", napi_uint32_array, false);
    d.parent_offsets = ReadArray<uint32_t>(obj, "parentOffsets", napi_uint32_array, false);
    d.parent_slots = ReadArray<uint32_t>(obj, "parentSlots", napi_uint32_array, false);
    return d;
}

/** The incremental engine (incremental.h) as a JavaScript class: one per thread that owns it. */
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

    Napi::Value Build(const Napi::CallbackInfo& info)
    {
        Napi::Env env = info.Env();
        return Guard(env, [&]() -> Napi::Value {
            opt::Options o = ReadOptions(info[0]);
            const bool full = info[1].IsBoolean() && info[1].As<Napi::Boolean>().Value();
            o.skip_v30 = !(info[2].IsBoolean() && info[2].As<Napi::Boolean>().Value());
            if (env.IsExceptionPending()) return env.Undefined();
            const opt::IncrementalResult ir = m_engine.Build(o, full);
            Napi::Object res = ResultObject(env, ir.r, true);
            res.Set("txChunkFeeRateSatVb", Copy<double, Napi::Float64Array>(env, ir.chunk_rate));
            res.Set("slotOfIndex", Copy<uint32_t, Napi::Uint32Array>(env, ir.slot_of_index));
            res.Set("keys", Copy<uint32_t, Napi::Uint32Array>(env, ir.keys));
            res.Set("dirtySlots", Napi::Number::New(env, ir.dirty_slots));
            res.Set("prepareMs", Napi::Number::New(env, ir.prepare_ms));
            return res;
        });
    }

    Napi::Value Size(const Napi::CallbackInfo& info) { return Napi::Number::New(info.Env(), m_engine.Size()); }

    Napi::Value Clear(const Napi::CallbackInfo& info)
    {
        m_engine.Clear();
        return info.Env().Undefined();
    }
};

Napi::Value VersionJs(const Napi::CallbackInfo& info) { return Napi::String::New(info.Env(), VERSION); }

Napi::Object Init(Napi::Env env, Napi::Object exports)
{
    exports.Set("buildTemplates", Napi::Function::New(env, BuildTemplatesJs, "buildTemplates"));
    exports.Set("inspectClusters", Napi::Function::New(env, InspectClustersJs, "inspectClusters"));
    exports.Set("selfCheck", Napi::Function::New(env, SelfCheckJs, "selfCheck"));
    exports.Set("version", Napi::Function::New(env, VersionJs, "version"));
    exports.Set("IncrementalEngine", EngineWrap::Define(env));
    return exports;
}

} // namespace

NODE_API_MODULE(optimizer, Init)
