// Projected blocks 1..N: block 1 is the optimized template; each next block is built the same way
// (TemplateBuilder::Build, same limits, a smaller search budget since later blocks feed fee
// estimates) on the chunks that remain.
//
// Every block consists of whole chunks, and removing whole chunks from a chunked linearization
// leaves exactly the other chunks (chunk rates are non-increasing and chunking merges only on a
// strictly higher rate), so the chunks and the mining order stay valid from block to block. The
// equal-rate tie-break (eq_prefix) is not recomputed for later blocks.
// Invariants: tx_block[t] is the 0-based block that takes t, or -1 beyond the N blocks; each block
// is closed under parents given the earlier blocks.
#pragma once

#include <chrono>
#include <memory>
#include <vector>

#include "template_optimized.h"

namespace opt {

struct BlockStats {
    uint32_t tx_count{0};
    int64_t fee{0};
    int64_t weight{0};
    double min_rate{0};     // sat/vB of the lowest-rate chunk (fee * 4 / adj_weight)
    double median_rate{0};  // rate at the block's middle weight unit (weight-weighted median)
    double max_rate{0};
};

struct Projection {
    Selection first;  // block 1 = the optimized template
    TailSearchStats first_stats;
    std::vector<int32_t> tx_block;
    std::vector<BlockStats> blocks;
    uint64_t search_nodes{0};  // over all blocks
    double first_block_ms{0};  // wall time of block 1 (reporting only)
};

/** Builds `count` blocks from the mining order: block 1, then blocks 2..N, so that what needs only
 *  block 1 (the upper bound) can run on another thread beside blocks 2..N. incumbent (may be null;
 *  it satisfies the request limits) guards block 1 only; its chunk ids are in incumbent_table, which
 *  may differ from t (then the remaining blocks are built on a re-chunked table when the incumbent
 *  wins). The tables, order and incumbent must outlive it; it only reads them. parallel: the
 *  builder's construction uses a second thread (TemplateBuilder); the same result.
 *  Complexity: O(count * (m + search)). */
class Projector
{
public:
    Projector(const Graph& g, const ChunkTable& t, std::span<const uint32_t> order, const TemplateLimits& limits,
              const Selection* incumbent, const ChunkTable* incumbent_table, int64_t count, uint64_t projected_budget,
              bool parallel = false);
    /** Block 1 given (a template better than the builder's, chunked as first_table; it satisfies
     *  the limits): blocks 2..N are built on t's chunks that remain, as when block 1 is an incumbent
     *  from another table, without building block 1 again. */
    Projector(const Graph& g, const ChunkTable& t, const TemplateLimits& limits, Selection first, const ChunkTable& first_table,
              int64_t count, uint64_t projected_budget, bool parallel = false);
    ~Projector();
    Projector(const Projector&) = delete;
    Projector& operator=(const Projector&) = delete;

    /** Block 1 (the optimized template), once. */
    const Selection& BuildFirst();
    /** Blocks 2..N (block 1 first if not built yet); the whole projection, once. */
    Projection BuildRest();

private:
    void Step(int64_t b);
    /** Block b is sel (chunked as table): its stats, and its transactions mined. */
    void Mine(int64_t b, const ChunkTable& table, const Selection& sel);
    /** The transactions not mined yet, chunked again (m_rest), and the builder on them. */
    void ContinueOnRest();
    const Graph& m_g;
    const TemplateLimits m_limits;
    const Selection* m_incumbent;
    const ChunkTable* m_incumbent_table;
    const int64_t m_count;
    const uint64_t m_budget;
    const bool m_parallel;
    Projection m_pr;
    std::vector<uint8_t> m_state;
    std::unique_ptr<TemplateBuilder> m_builder;
    const ChunkTable* m_table;
    std::unique_ptr<ChunkTable> m_rest;  // when block 1 is an incumbent from another table
    std::vector<uint32_t> m_rest_order;
    int64_t m_next{0};  // the next block to build
};

/** Stats of one template (chunk rates need its chunk list). O(c log c) for c chunks. */
BlockStats StatsOf(const ChunkTable& t, const Selection& sel);

}  // namespace opt
