// The hull / LP upper bound; see bound.h for why it is valid.
#include "bound.h"

#include <algorithm>
#include <cmath>

namespace opt {

namespace {

/** Fractional knapsack over items already sorted by rate (descending). */
template <typename Items>
int64_t Fill(const Items& items, size_t count, int64_t capacity)
{
    int64_t fee = 0, room = capacity;
    for (size_t i = 0; i < count; ++i) {
        const FeeFrac it = items(i);
        if (it.size <= room) {
            fee += it.fee;
            room -= it.size;
        } else {
            return fee + MulDivFloor(it.fee, room, it.size);
        }
    }
    return fee;
}

} // namespace

UpperBound ComputeUpperBound(const Graph& g, const Clusters& cl, const Linearization& lin, const ChunkTable& t,
                             std::span<const uint32_t> order, int64_t capacity)
{
    UpperBound ub;
    std::vector<uint8_t> relaxed(cl.count, 0);
    for (uint32_t c = 0; c < cl.count; ++c) {
        bool r = !lin.optimal[c];
        if (!t.real) {
            for (uint32_t x : cl.Txs(c)) r = r || g.adj_weight[x] != g.weight[x];
        }
        relaxed[c] = r;
        ub.relaxed_clusters += r;
    }
    ub.exact = ub.relaxed_clusters == 0;
    if (ub.exact) {
        ub.fee = Fill([&](size_t i) { return FeeFrac{t.chunks[order[i]].fee, t.chunks[order[i]].weight}; }, order.size(), capacity);
        return ub;
    }
    std::vector<FeeFrac> items;
    items.reserve(order.size());
    for (uint32_t k : order) {
        if (!relaxed[t.chunks[k].cluster]) items.push_back({t.chunks[k].fee, t.chunks[k].weight});
    }
    for (uint32_t x = 0; x < g.n; ++x) {
        if (relaxed[cl.cluster_of[x]]) items.push_back({g.fee[x], g.weight[x]});
    }
    std::sort(items.begin(), items.end(), [](const FeeFrac& a, const FeeFrac& b) {
        const double ra = static_cast<double>(a.fee) / static_cast<double>(a.size);
        const double rb = static_cast<double>(b.fee) / static_cast<double>(b.size);
        if (std::fabs(ra - rb) > 1e-12 * std::max(std::fabs(ra), std::fabs(rb))) return ra > rb;
        return CompareFeerate(a, b) > 0;
    });
    ub.fee = Fill([&](size_t i) { return items[i]; }, items.size(), capacity);
    return ub;
}

} // namespace opt
