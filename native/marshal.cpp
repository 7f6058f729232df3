// N-API marshalling (see marshal.h). Every JavaScript name here is a field of native.ts's types.
#include "marshal.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <span>
#include <string>

#include "option_ranges.h"

namespace marshal {

namespace {

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

/** Read options[range.name] as an integer in its range into `out` (kept when absent). */
template <typename T>
void ReadInt(const Napi::Object& obj, const opt::ranges::IntRange& range, T& out)
{
    const Napi::Value v = obj.Get(range.name);
    if (v.IsUndefined()) return;
    const double d = v.IsNumber() ? v.As<Napi::Number>().DoubleValue() : NAN;
    if (!std::isfinite(d) || d != std::floor(d) || d < static_cast<double>(range.min) || d > static_cast<double>(range.max)) {
        throw opt::InputError(opt::ErrorCode::INVALID_ARGUMENT, std::string("options.") + range.name + " must be an integer in [" +
                                                                    std::to_string(range.min) + ", " + std::to_string(range.max) + "]");
    }
    out = static_cast<T>(d);
}

/** The fee rate option, sat/vB in JavaScript, sat/kvB inside (0.001 sat/vB resolution). */
void ReadMinFeeRate(const Napi::Object& obj, int64_t& sat_kvb)
{
    constexpr auto range = opt::ranges::MIN_FEE_RATE_SAT_VB;
    const Napi::Value rate = obj.Get(range.name);
    if (rate.IsUndefined()) return;
    const double d = rate.IsNumber() ? rate.As<Napi::Number>().DoubleValue() : NAN;
    if (!std::isfinite(d) || d < range.min || d > range.max) {
        char bounds[64];
        std::snprintf(bounds, sizeof bounds, "[%g, %g]", range.min, range.max);
        throw opt::InputError(opt::ErrorCode::INVALID_ARGUMENT, std::string("options.") + range.name + " must be a number in " + bounds);
    }
    sat_kvb = std::llround(d * 1000);
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

Napi::Number Num(Napi::Env env, double d) { return Napi::Number::New(env, d); }

Napi::Object SelectionObject(Napi::Env env, const opt::Selection& s)
{
    Napi::Object o = Napi::Object::New(env);
    o.Set("indices", Copy<uint32_t, Napi::Uint32Array>(env, s.txs));
    o.Set("txCount", Num(env, static_cast<double>(s.txs.size())));
    o.Set("feeSat", Num(env, static_cast<double>(s.fee)));
    o.Set("weightWu", Num(env, static_cast<double>(s.weight)));
    o.Set("adjustedWeightWu", Num(env, static_cast<double>(s.adj_weight)));
    o.Set("sigopCost", Num(env, static_cast<double>(s.sigops)));
    return o;
}

Napi::Object UpperBoundObject(Napi::Env env, const opt::UpperBound& b)
{
    Napi::Object o = Napi::Object::New(env);
    o.Set("feeSat", Num(env, static_cast<double>(b.fee)));
    o.Set("lpFeeSat", Num(env, static_cast<double>(b.lp_fee)));
    o.Set("exact", Napi::Boolean::New(env, b.exact));
    o.Set("relaxedClusters", Num(env, b.relaxed_clusters));
    o.Set("solved", Napi::Boolean::New(env, b.solved));
    o.Set("freeClusters", Num(env, b.free_clusters));
    o.Set("searchNodes", Num(env, static_cast<double>(b.search_nodes)));
    return o;
}

Napi::Array ProjectedBlocksArray(Napi::Env env, const std::vector<opt::BlockStats>& blocks)
{
    Napi::Array out = Napi::Array::New(env, blocks.size());
    for (uint32_t b = 0; b < blocks.size(); ++b) {
        const auto& s = blocks[b];
        Napi::Object o = Napi::Object::New(env);
        o.Set("txCount", Num(env, s.tx_count));
        o.Set("feeSat", Num(env, static_cast<double>(s.fee)));
        o.Set("weightWu", Num(env, static_cast<double>(s.weight)));
        o.Set("minFeeRateSatVb", Num(env, s.min_rate));
        o.Set("medianFeeRateSatVb", Num(env, s.median_rate));
        o.Set("maxFeeRateSatVb", Num(env, s.max_rate));
        out.Set(b, o);
    }
    return out;
}

Napi::Object ClustersObject(Napi::Env env, const opt::Result& r)
{
    Napi::Object o = Napi::Object::New(env);
    o.Set("count", Num(env, r.cluster_count));
    o.Set("largest", Num(env, r.largest));
    o.Set("optimalCount", Num(env, r.optimal_count));
    o.Set("over64Count", Num(env, r.over64_count));
    o.Set("linearizeCost", Num(env, static_cast<double>(r.linearize_cost)));
    o.Set("chunkCount", Num(env, r.chunk_count));
    o.Set("realWeightRelinearized", Num(env, r.real_relinearized));
    o.Set("reusedCount", Num(env, r.reused_count));
    return o;
}

Napi::Object TailSearchObject(Napi::Env env, const opt::Result& r)
{
    Napi::Object o = Napi::Object::New(env);
    o.Set("nodes", Num(env, static_cast<double>(r.tail.nodes)));
    o.Set("complete", Napi::Boolean::New(env, r.tail.complete));
    o.Set("windowChunks", Num(env, r.tail.window_chunks));
    o.Set("greedyFeeSat", Num(env, static_cast<double>(r.tail.greedy_fee)));
    o.Set("improvedSat", Num(env, static_cast<double>(r.tail.improved_sat)));
    o.Set("usedBaselineV31", Napi::Boolean::New(env, r.tail.used_incumbent));
    o.Set("usedBoundTemplate", Napi::Boolean::New(env, r.tail.used_bound));
    o.Set("sigopsBinding", Napi::Boolean::New(env, r.tail.sigops_binding));
    o.Set("projectedNodes", Num(env, static_cast<double>(r.projected_search_nodes)));
    return o;
}

Napi::Object TimingsObject(Napi::Env env, const opt::Timings& t)
{
    Napi::Object o = Napi::Object::New(env);
    o.Set("validate", Num(env, t.validate));
    o.Set("clusters", Num(env, t.clusters));
    o.Set("linearize", Num(env, t.linearize));
    o.Set("chunk", Num(env, t.chunk));
    o.Set("baselines", Num(env, t.baselines));
    o.Set("optimized", Num(env, t.optimized));
    o.Set("bound", Num(env, t.bound));
    o.Set("projected", Num(env, t.projected));
    o.Set("total", Num(env, t.total));
    return o;
}

/** The result as JavaScript; `engine`: without the per-tx chunk fee/weight and the linearization. */
Napi::Object ResultObject(Napi::Env env, const opt::Result& r, bool engine)
{
    Napi::Object o = Napi::Object::New(env);
    o.Set("optimized", SelectionObject(env, r.optimized));
    o.Set("baselineV31", SelectionObject(env, r.v31));
    o.Set("baselineV30", SelectionObject(env, r.v30));
    o.Set("v31WithinRequestLimits", Napi::Boolean::New(env, r.v31_within_limits));
    o.Set("upperBound", UpperBoundObject(env, r.bound));
    if (!engine) {
        o.Set("txChunkFeeSat", Copy<double, Napi::Float64Array>(env, r.tx_chunk_fee));
        o.Set("txChunkWeightWu", Copy<uint32_t, Napi::Uint32Array>(env, r.tx_chunk_weight));
    }
    o.Set("txProjectedBlock", Copy<int32_t, Napi::Int32Array>(env, r.tx_block));
    o.Set("projectedBlocks", ProjectedBlocksArray(env, r.blocks));
    if (!engine) o.Set("linearization", Copy<uint32_t, Napi::Uint32Array>(env, r.linearization));
    o.Set("clusters", ClustersObject(env, r));
    o.Set("tailSearch", TailSearchObject(env, r));
    o.Set("timingsMs", TimingsObject(env, r.timings));
    return o;
}

}  // namespace

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
    namespace r = opt::ranges;
    opt::Options o;
    if (value.IsUndefined() || value.IsNull()) return o;
    if (!value.IsObject()) throw opt::InputError(opt::ErrorCode::INVALID_ARGUMENT, "options must be an object");
    const auto obj = value.As<Napi::Object>();
    ReadInt(obj, r::WEIGHT_LIMIT_WU, o.weight_limit);
    ReadInt(obj, r::COINBASE_RESERVE_WU, o.coinbase_reserve);
    ReadInt(obj, r::MAX_SIGOP_COST, o.max_sigop_cost);
    ReadInt(obj, r::COINBASE_SIGOP_COST, o.coinbase_sigops);
    ReadInt(obj, r::MAX_TX_COUNT, o.max_tx_count);
    ReadInt(obj, r::PROJECTED_BLOCKS, o.projected_blocks);
    ReadInt(obj, r::TAIL_WINDOW_PCT, o.tail_window_pct);
    ReadInt(obj, r::THREADS, o.threads);
    ReadInt(obj, r::LINEARIZE_BUDGET, o.linearize_budget);
    ReadInt(obj, r::LINEARIZE_EXTRA_BUDGET, o.linearize_extra_budget);
    ReadInt(obj, r::TAIL_SEARCH_BUDGET, o.tail_search_budget);
    ReadInt(obj, r::PROJECTED_SEARCH_BUDGET, o.projected_search_budget);
    ReadInt(obj, r::SEED, o.seed);
    ReadMinFeeRate(obj, o.min_fee_rate_sat_kvb);
    return o;
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

bool ReadFlag(const Napi::Value& value) { return value.IsBoolean() && value.As<Napi::Boolean>().Value(); }

Napi::Object ResultObject(Napi::Env env, const opt::Result& r) { return ResultObject(env, r, false); }

Napi::Object IncrementalResultObject(Napi::Env env, const opt::IncrementalResult& ir)
{
    Napi::Object o = ResultObject(env, ir.r, true);
    o.Set("txChunkFeeRateSatVb", Copy<double, Napi::Float64Array>(env, ir.chunk_rate));
    o.Set("slotOfIndex", Copy<uint32_t, Napi::Uint32Array>(env, ir.slot_of_index));
    o.Set("keys", Copy<uint32_t, Napi::Uint32Array>(env, ir.keys));
    o.Set("dirtySlots", Num(env, ir.dirty_slots));
    o.Set("keptChunks", Num(env, ir.r.kept_chunks));
    o.Set("prepareMs", Num(env, ir.prepare_ms));
    return o;
}

Napi::Array ClusterDetailsArray(Napi::Env env, const std::vector<opt::ClusterDetail>& details)
{
    Napi::Array out = Napi::Array::New(env, details.size());
    for (uint32_t c = 0; c < details.size(); ++c) {
        Napi::Object d = Napi::Object::New(env);
        d.Set("linearization", Copy<uint32_t, Napi::Uint32Array>(env, details[c].txs));
        d.Set("chunkSizes", Copy<uint32_t, Napi::Uint32Array>(env, details[c].chunk_sizes));
        d.Set("optimal", Napi::Boolean::New(env, details[c].optimal));
        d.Set("cost", Num(env, static_cast<double>(details[c].cost)));
        out.Set(c, d);
    }
    return out;
}

}  // namespace marshal
