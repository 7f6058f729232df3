// The Lagrangian repair heuristic; see bound_repair.h.
#include "bound_repair.h"

#include <algorithm>
#include <queue>
#include <utility>

namespace opt {

std::vector<uint32_t> RepairTemplate(const Graph& g, std::span<const uint32_t> start, std::span<const uint8_t> eligible,
                                     const RepairLimits& lim, double mu, int64_t& fee)
{
    std::vector<uint8_t> in(g.n, 0);
    int64_t w = 0, s = 0, n = 0;
    fee = 0;
    for (uint32_t x : start) {
        if (in[x]) continue;
        in[x] = 1;
        w += g.weight[x];
        s += g.sigops[x];
        n += 1;
        fee += g.fee[x];
    }
    const auto net = [&](uint32_t x) {
        return (static_cast<double>(g.fee[x]) - mu * static_cast<double>(g.sigops[x])) / static_cast<double>(g.weight[x]);
    };
    const auto over = [&] { return w > lim.weight || s > lim.sigops || n > lim.count; };
    // Drop: a min-heap of the leaves by net rate (entries go stale when a child is still in).
    std::vector<uint32_t> kids_in(g.n, 0);
    for (uint32_t x = 0; x < g.n; ++x) {
        if (!in[x]) continue;
        for (uint32_t q : g.Parents(x)) kids_in[q] += in[q];
    }
    // (The heaps are built from their first entries at once, in linear time.)
    using Entry = std::pair<double, uint32_t>;
    std::vector<Entry> entries;
    for (uint32_t x = 0; x < g.n; ++x) {
        if (in[x] && kids_in[x] == 0) entries.emplace_back(net(x), x);
    }
    std::priority_queue<Entry, std::vector<Entry>, std::greater<>> leaves(std::greater<>{}, std::move(entries));
    while (over() && !leaves.empty()) {
        const uint32_t x = leaves.top().second;
        leaves.pop();
        if (!in[x] || kids_in[x] != 0) continue;
        in[x] = 0;
        w -= g.weight[x];
        s -= g.sigops[x];
        n -= 1;
        fee -= g.fee[x];
        for (uint32_t q : g.Parents(x)) {
            if (--kids_in[q] == 0) leaves.emplace(net(q), q);
        }
    }
    // Add: a max-heap of the transactions outside whose parents are all in.
    std::vector<uint32_t> missing(g.n, 0);
    entries.clear();
    for (uint32_t x = 0; x < g.n; ++x) {
        if (in[x] || (!eligible.empty() && !eligible[x])) continue;
        for (uint32_t q : g.Parents(x)) missing[x] += !in[q];
        if (missing[x] == 0) entries.emplace_back(net(x), x);
    }
    std::priority_queue<Entry> ready(std::less<Entry>{}, std::move(entries));
    int64_t lightest = lim.weight + 1;  // nothing lighter is ever added: past it the heap need not drain
    for (uint32_t x = 0; x < g.n; ++x) {
        if (!in[x] && (eligible.empty() || eligible[x])) lightest = std::min(lightest, g.weight[x]);
    }
    while (!ready.empty() && w + lightest <= lim.weight && n < lim.count) {
        const uint32_t x = ready.top().second;
        ready.pop();
        if (in[x] || w + g.weight[x] > lim.weight || s + g.sigops[x] > lim.sigops || n + 1 > lim.count) continue;
        in[x] = 1;
        w += g.weight[x];
        s += g.sigops[x];
        n += 1;
        fee += g.fee[x];
        for (uint32_t c : g.Children(x)) {
            if (!in[c] && (eligible.empty() || eligible[c]) && --missing[c] == 0) ready.emplace(net(c), c);
        }
    }
    std::vector<uint32_t> out;
    for (uint32_t x = 0; x < g.n; ++x) {  // (internal ids are topological within each cluster)
        if (in[x]) out.push_back(x);
    }
    if (over()) {
        fee = -1;
        out.clear();
    }
    return out;
}

}  // namespace opt
