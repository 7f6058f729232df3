// A block template under construction: chosen transactions in block order and their totals.
//
// Invariants: txs lists transactions in block order (parents first); chunks lists the chunk ids
// it was built from (empty for the v30 baseline, which selects ancestor packages); fee, weight,
// adj_weight and sigops are the sums over txs.
#pragma once

#include <cstdint>
#include <vector>

#include "chunk.h"

namespace opt {

struct Selection {
    std::vector<uint32_t> txs;
    std::vector<uint32_t> chunks;
    int64_t fee{0};
    int64_t weight{0};
    int64_t adj_weight{0};
    int64_t sigops{0};

    /** Append chunk k (its transactions in linearization order). Complexity: O(|k|). */
    void AddChunk(const ChunkTable& t, uint32_t k)
    {
        chunks.push_back(k);
        for (uint32_t x : t.Txs(k)) txs.push_back(x);
        fee += t.chunks[k].fee;
        weight += t.chunks[k].weight;
        adj_weight += t.chunks[k].adj_weight;
        sigops += t.chunks[k].sigops;
    }
};

}  // namespace opt
