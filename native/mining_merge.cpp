// The mining order from the previous one; see mining_merge.h.
#include "mining_merge.h"

#include <algorithm>

namespace opt {

bool MergeIntoMiningOrder(ChunkTable& t, const Clusters& cl, const MiningHint& hint)
{
    const uint32_t m = t.Count();
    if (hint.changed.size() != cl.count || hint.kept.cluster.size() != hint.kept.offset.size()) return false;
    std::vector<uint32_t> kept;
    kept.reserve(hint.kept.cluster.size());
    for (size_t j = 0; j < hint.kept.cluster.size(); ++j) {
        const uint32_t c = hint.kept.cluster[j];
        if (c >= cl.count || hint.changed[c] || hint.kept.offset[j] >= cl.Size(c)) return false;
        const uint32_t pos = cl.offsets[c] + hint.kept.offset[j];
        const uint32_t k = t.chunk_of[t.txs[pos]];
        if (t.chunks[k].tx_begin != pos) return false;  // no chunk starts there now
        // Strictly increasing in the (total) mining order: sorted, and no chunk twice.
        if (!kept.empty() && !t.Before(kept.back(), k)) return false;
        kept.push_back(k);
    }
    std::vector<uint32_t> fresh;
    for (uint32_t k = 0; k < m; ++k) {
        if (hint.changed[t.chunks[k].cluster]) fresh.push_back(k);
    }
    if (kept.size() + fresh.size() != m) return false;  // an unchanged cluster's chunk left out
    std::sort(fresh.begin(), fresh.end(), [&](uint32_t a, uint32_t b) { return t.Before(a, b); });
    std::vector<Chunk> sorted;
    sorted.reserve(m);
    size_t a = 0, b = 0;
    while (a < kept.size() || b < fresh.size()) {
        const bool take_kept = b == fresh.size() || (a < kept.size() && t.Before(kept[a], fresh[b]));
        sorted.push_back(t.chunks[take_kept ? kept[a++] : fresh[b++]]);
    }
    t.chunks.swap(sorted);
    for (uint32_t k = 0; k < m; ++k) {
        for (uint32_t i = t.chunks[k].tx_begin; i < t.chunks[k].tx_end; ++i) t.chunk_of[t.txs[i]] = k;
    }
    return true;
}

void RecordMiningOrder(const ChunkTable& t, const Clusters& cl, MiningOrder& out)
{
    const uint32_t m = t.Count();
    out.cluster.resize(m);
    out.offset.resize(m);
    for (uint32_t k = 0; k < m; ++k) {
        const Chunk& ch = t.chunks[k];
        out.cluster[k] = ch.cluster;
        out.offset[k] = ch.tx_begin - cl.offsets[ch.cluster];
    }
}

}  // namespace opt
