// The sigop multiplier and the guided template; see bound_lagrange.h.
#include "bound_lagrange.h"

#include "bound_golden.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace opt {

namespace {

struct Item {
    double rate;  // sat/WU, net of mu for the sigop-carrying
    double w;
};

/** The fractional knapsack over two lists sorted by rate (descending): min over lambda of
 *  lambda * cap + sum max(0, value - lambda * w), returned with lambda (the critical rate). */
std::pair<double, double> Fill(const std::vector<Item>& a, const std::vector<Item>& b, double cap)
{
    size_t i = 0, j = 0;
    double fee = 0, room = cap;
    while (i < a.size() || j < b.size()) {
        const bool take_a = j == b.size() || (i < a.size() && a[i].rate >= b[j].rate);
        const Item& it = take_a ? a[i++] : b[j++];
        if (it.rate <= 0) break;
        if (it.w <= room) {
            fee += it.rate * it.w;
            room -= it.w;
        } else {
            return {fee + it.rate * room, it.rate};
        }
    }
    return {fee, 0.0};
}

/** v sorted for Fill (rate descending; equal rates by weight ascending, so that only identical
 *  items tie and the order is the same on every run) and cut to the items Fill can read: the best
 *  ones up to the first that the weight cap cannot hold (Fill stops there at any mu, since the
 *  other list only takes room). A whole mempool's plain transactions are ~50 times a block's:
 *  selecting the best (nth_element, doubling the count until their weight passes the cap) and
 *  sorting only those replaces the sort of all of them, which was most of this function's time.
 *  O(n) expected plus O(k log k) for the k kept. */
void SortFillPrefix(std::vector<Item>& v, double cap)
{
    const auto before = [](const Item& a, const Item& b) { return a.rate > b.rate || (a.rate == b.rate && a.w < b.w); };
    for (size_t k = 4096; k < v.size(); k *= 2) {
        std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k), v.end(), before);  // v[0, k): the k best
        double w = 0;
        for (size_t i = 0; i < k; ++i) w += v[i].w;
        if (w > cap) {
            v.resize(k);
            break;
        }
    }
    std::sort(v.begin(), v.end(), before);
}

}  // namespace

LagrangeChoice ChooseSigopMultiplier(const Graph& g, std::span<const double> rate_of, std::span<const uint8_t> eligible,
                                     int64_t weight_cap, int64_t sigop_cap)
{
    std::vector<Item> plain;
    std::vector<uint32_t> heavy;  // the sigop-carrying transactions
    for (uint32_t x = 0; x < g.n; ++x) {
        if (!eligible.empty() && !eligible[x]) continue;
        if (g.sigops[x] == 0) {
            plain.push_back({rate_of[x], static_cast<double>(g.weight[x])});
        } else {
            heavy.push_back(x);
        }
    }
    const auto by_rate = [](const Item& a, const Item& b) { return a.rate > b.rate; };
    const double cap = static_cast<double>(weight_cap), scap = static_cast<double>(sigop_cap);
    SortFillPrefix(plain, cap);
    // Never taken at any mu: below the critical rate of the plain transactions alone (the rate
    // only falls with mu, and lambda never falls below that).
    const double floor_rate = Fill(plain, {}, cap).second;
    std::erase_if(heavy, [&](uint32_t x) { return rate_of[x] < floor_rate; });
    double mu_max = 0;
    for (uint32_t x : heavy) mu_max = std::max(mu_max, rate_of[x] * static_cast<double>(g.weight[x]) / static_cast<double>(g.sigops[x]));
    std::vector<Item> net;
    const auto eval = [&](double mu) {
        net.clear();
        for (uint32_t x : heavy) {
            const double w = static_cast<double>(g.weight[x]);
            const double r = rate_of[x] - mu * static_cast<double>(g.sigops[x]) / w;
            if (r > 0) net.push_back({r, w});
        }
        std::sort(net.begin(), net.end(), by_rate);
        const auto [fee, lambda] = Fill(plain, net, cap);
        return LagrangeChoice{mu, lambda, mu * scap + fee};
    };
    LagrangeChoice best = eval(0);
    // Does the LP at mu = 0 fit the sigop limit? Then mu = 0 is optimal (complementary slackness).
    {
        double sig = 0;
        std::vector<std::pair<double, uint32_t>> hs;
        for (uint32_t x : heavy) hs.emplace_back(rate_of[x], x);
        std::sort(hs.begin(), hs.end(), std::greater<>());
        for (const auto& [r, x] : hs) {
            if (r < best.lambda) break;
            sig += static_cast<double>(g.sigops[x]);
        }
        if (sig <= scap) return best;
    }
    const auto [c1, c2] = GoldenSection(0.0, mu_max, 32, 1e-9, eval, [](const LagrangeChoice& c) { return c.lp; });
    for (const LagrangeChoice& c : {c1, c2}) {
        if (c.lp < best.lp) best = c;
    }
    return best;
}

GuidedTemplate GuidedGreedy(const ChunkTable& t, std::span<const uint8_t> eligible_chunk, double mu, int64_t weight_cap,
                            int64_t sigop_cap, int64_t count_cap)
{
    const uint32_t m = t.Count();
    std::vector<double> key(m);
    std::vector<double> run;  // per cluster: the lowest key so far (a chunk never goes before an earlier one)
    for (uint32_t k = 0; k < m; ++k) {
        const Chunk& ch = t.chunks[k];
        if (ch.cluster >= run.size()) run.resize(ch.cluster + 1, std::numeric_limits<double>::infinity());
        const double own = (static_cast<double>(ch.fee) - mu * static_cast<double>(ch.sigops)) / static_cast<double>(ch.weight);
        run[ch.cluster] = std::min(run[ch.cluster], own);
        key[k] = run[ch.cluster];
    }
    std::vector<uint32_t> ids(m);
    std::iota(ids.begin(), ids.end(), 0u);
    std::stable_sort(ids.begin(), ids.end(), [&](uint32_t a, uint32_t b) { return key[a] > key[b]; });
    std::vector<uint8_t> blocked(run.size(), 0);
    GuidedTemplate out;
    int64_t w = 0, s = 0, n = 0;
    for (uint32_t k : ids) {
        const Chunk& ch = t.chunks[k];
        if (blocked[ch.cluster]) continue;
        if (!eligible_chunk[k] || w + ch.weight > weight_cap || s + ch.sigops > sigop_cap || n + t.TxCount(k) > count_cap) {
            blocked[ch.cluster] = 1;
            continue;
        }
        w += ch.weight;
        s += ch.sigops;
        n += t.TxCount(k);
        out.fee += ch.fee;
        out.chunks.push_back(k);
    }
    std::sort(out.chunks.begin(), out.chunks.end());
    return out;
}

}  // namespace opt
