// Projected blocks; see projected.h.
#include "projected.h"

#include <algorithm>
#include <memory>
#include <numeric>

namespace opt {

BlockStats StatsOf(const ChunkTable& t, const Selection& sel)
{
    BlockStats s;
    s.tx_count = static_cast<uint32_t>(sel.txs.size());
    s.fee = sel.fee;
    s.weight = sel.weight;
    if (sel.chunks.empty()) return s;
    std::vector<std::pair<double, int64_t>> rates;  // (sat/vB, weight)
    rates.reserve(sel.chunks.size());
    for (uint32_t k : sel.chunks) {
        rates.emplace_back(4.0 * static_cast<double>(t.chunks[k].fee) / static_cast<double>(t.chunks[k].adj_weight), t.chunks[k].weight);
    }
    std::sort(rates.begin(), rates.end());
    s.min_rate = rates.front().first;
    s.max_rate = rates.back().first;
    const int64_t half = (sel.weight + 1) / 2;
    int64_t acc = 0;
    for (const auto& [rate, w] : rates) {
        acc += w;
        if (acc >= half) {
            s.median_rate = rate;
            break;
        }
    }
    return s;
}

Projection ProjectBlocks(const Graph& g, const ChunkTable& t, std::span<const uint32_t> order, const TemplateLimits& limits,
                         const Selection* incumbent, const ChunkTable* incumbent_table, int64_t count, uint64_t projected_budget)
{
    Projection pr;
    pr.tx_block.assign(g.n, -1);
    std::vector<uint8_t> state(g.n, TX_AVAILABLE);
    auto builder = std::make_unique<TemplateBuilder>(g, t, order, limits);
    const ChunkTable* table = &t;
    std::unique_ptr<ChunkTable> rest;  // when block 1 is an incumbent from another table
    std::vector<uint32_t> rest_order;
    for (int64_t b = 0; b < count; ++b) {
        TailSearchStats stats;
        const auto started = std::chrono::steady_clock::now();
        Selection sel = builder->Build(state, b == 0 ? limits.search_budget : projected_budget, b == 0 ? incumbent : nullptr, stats);
        if (b == 0) pr.first_block_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
        pr.search_nodes += stats.nodes;
        const bool foreign = stats.used_incumbent && incumbent_table != nullptr && incumbent_table != table;
        pr.blocks.push_back(StatsOf(foreign ? *incumbent_table : *table, sel));
        for (uint32_t x : sel.txs) {
            pr.tx_block[x] = static_cast<int32_t>(b);
            state[x] = TX_MINED;
        }
        if (foreign) {
            // The incumbent's transactions need not be whole chunks of this table: re-chunk what
            // is left and continue on that table.
            std::vector<uint8_t> keep(g.n);
            for (uint32_t x = 0; x < g.n; ++x) keep[x] = state[x] != TX_MINED;
            rest = std::make_unique<ChunkTable>(RechunkRemaining(g, *table, keep));
            rest_order.resize(rest->Count());
            std::iota(rest_order.begin(), rest_order.end(), 0u);
            builder = std::make_unique<TemplateBuilder>(g, *rest, rest_order, limits);
            table = rest.get();
        } else {
            builder->Remove(sel);
        }
        if (b == 0) {
            pr.first = std::move(sel);
            pr.first_stats = stats;
        }
    }
    return pr;
}

}  // namespace opt
