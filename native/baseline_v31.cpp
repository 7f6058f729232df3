// Core v31 addChunks; see baseline_v31.h for the rules copied.
#include "baseline_v31.h"

namespace opt {

namespace {
constexpr int64_t MAX_CONSECUTIVE_FAILURES = 1000;        // src/node/miner.cpp
constexpr int64_t BLOCK_FULL_ENOUGH_WEIGHT_DELTA = 4000;  // src/node/miner.cpp
constexpr int64_t WITNESS_SCALE_FACTOR = 4;               // src/consensus/consensus.h
}  // namespace

Selection BuildBaselineV31(const ChunkTable& t, std::span<const uint32_t> order, uint32_t cluster_count, const Options& o)
{
    Selection sel;
    std::vector<uint8_t> excluded(cluster_count, 0);
    int64_t block_weight = o.coinbase_reserve;
    int64_t block_sigops = o.coinbase_sigops;
    int64_t failures = 0;
    for (uint32_t k : order) {
        if (excluded[t.chunks[k].cluster]) continue;
        // FeePerVSize{fee, vsize} << FeePerVSize{blockmintxfee, 1000}
        const int64_t vsize = (t.chunks[k].adj_weight + WITNESS_SCALE_FACTOR - 1) / WITNESS_SCALE_FACTOR;
        if (static_cast<__int128>(t.chunks[k].fee) * 1000 < static_cast<__int128>(o.block_min_fee_sat_kvb) * vsize) break;
        if (block_weight + t.chunks[k].adj_weight >= o.weight_limit || block_sigops + t.chunks[k].sigops >= o.max_sigop_cost) {
            excluded[t.chunks[k].cluster] = 1;
            ++failures;
            if (failures > MAX_CONSECUTIVE_FAILURES && block_weight + BLOCK_FULL_ENOUGH_WEIGHT_DELTA > o.weight_limit) break;
            continue;
        }
        sel.AddChunk(t, k);
        block_weight += t.chunks[k].weight;
        block_sigops += t.chunks[k].sigops;
        failures = 0;
    }
    return sel;
}

}  // namespace opt
