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

Projector::Projector(const Graph& g, const ChunkTable& t, std::span<const uint32_t> order, const TemplateLimits& limits,
                     const Selection* incumbent, const ChunkTable* incumbent_table, int64_t count, uint64_t projected_budget,
                     bool parallel)
    : m_g(g),
      m_limits(limits),
      m_incumbent(incumbent),
      m_incumbent_table(incumbent_table),
      m_count(count),
      m_budget(projected_budget),
      m_parallel(parallel),
      m_state(g.n, TX_AVAILABLE),
      m_builder(std::make_unique<TemplateBuilder>(g, t, order, limits, parallel)),
      m_table(&t)
{
    m_pr.tx_block.assign(g.n, -1);
}

Projector::Projector(const Graph& g, const ChunkTable& t, const TemplateLimits& limits, Selection first, const ChunkTable& first_table,
                     int64_t count, uint64_t projected_budget, bool parallel)
    : m_g(g),
      m_limits(limits),
      m_incumbent(nullptr),
      m_incumbent_table(nullptr),
      m_count(count),
      m_budget(projected_budget),
      m_parallel(parallel),
      m_state(g.n, TX_AVAILABLE),
      m_table(&t)
{
    m_pr.tx_block.assign(g.n, -1);
    if (m_count <= 0) return;
    Mine(0, first_table, first);
    m_pr.first_stats.used_incumbent = true;
    m_pr.first = std::move(first);
    m_next = 1;
    ContinueOnRest();
}

Projector::~Projector() = default;

void Projector::Step(int64_t b)
{
    TailSearchStats stats;
    const auto started = std::chrono::steady_clock::now();
    Selection sel = m_builder->Build(m_state, b == 0 ? m_limits.search_budget : m_budget, b == 0 ? m_incumbent : nullptr, stats);
    if (b == 0) m_pr.first_block_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
    m_pr.search_nodes += stats.nodes;
    const bool foreign = stats.used_incumbent && m_incumbent_table != nullptr && m_incumbent_table != m_table;
    Mine(b, foreign ? *m_incumbent_table : *m_table, sel);
    if (foreign) {
        // The incumbent's transactions need not be whole chunks of this table: re-chunk what
        // is left and continue on that table.
        ContinueOnRest();
    } else {
        m_builder->Remove(sel);
    }
    if (b == 0) {
        m_pr.first = std::move(sel);
        m_pr.first_stats = stats;
    }
}

void Projector::Mine(int64_t b, const ChunkTable& table, const Selection& sel)
{
    m_pr.blocks.push_back(StatsOf(table, sel));
    for (uint32_t x : sel.txs) {
        m_pr.tx_block[x] = static_cast<int32_t>(b);
        m_state[x] = TX_MINED;
    }
}

void Projector::ContinueOnRest()
{
    // The old builder first: its columns are not needed any more, and a cycle's peak memory is
    // memory touched afresh (page faults) every time a cycle reaches it.
    m_builder.reset();
    std::vector<uint8_t> keep(m_g.n);
    for (uint32_t x = 0; x < m_g.n; ++x) keep[x] = m_state[x] != TX_MINED;
    m_rest = std::make_unique<ChunkTable>(RechunkRemaining(m_g, *m_table, keep));  // m_table may be the old m_rest: freed after
    m_rest_order.resize(m_rest->Count());
    std::iota(m_rest_order.begin(), m_rest_order.end(), 0u);
    m_builder = std::make_unique<TemplateBuilder>(m_g, *m_rest, m_rest_order, m_limits, m_parallel);
    m_table = m_rest.get();
}

const Selection& Projector::BuildFirst()
{
    if (m_next == 0 && m_count > 0) Step(m_next++);
    return m_pr.first;
}

Projection Projector::BuildRest()
{
    BuildFirst();
    while (m_next < m_count) Step(m_next++);
    return std::move(m_pr);
}

}  // namespace opt
