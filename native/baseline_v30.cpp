// Core v30 ancestor-score block assembly; see baseline_v30.h.
#include "baseline_v30.h"

#include <algorithm>
#include <bit>
#include <set>

namespace opt {

namespace {

constexpr int64_t MAX_CONSECUTIVE_FAILURES = 1000;       // src/node/miner.cpp (v30.0)
constexpr int64_t BLOCK_FULL_ENOUGH_WEIGHT_DELTA = 4000; // src/node/miner.cpp (v30.0)

/** Ancestor-package totals of a transaction (itself included). */
struct Package {
    int64_t fee{0}, vsize{0}, sigops{0};
};

struct V30 {
    const Graph& g;
    const Options& o;
    std::vector<int64_t> vsize;         // sigop-adjusted vsize per tx
    std::vector<Package> anc;           // full ancestor packages
    std::vector<uint32_t> anc_count;
    std::vector<uint32_t> stamp;
    uint32_t epoch{0};
    std::vector<uint32_t> scratch;

    V30(const Graph& graph, const Options& options) : g(graph), o(options) {}

    /** min(own rate, package rate) as a fee/size pair (CompareTxMemPoolEntryByAncestorFee). */
    FeeFrac Score(uint32_t t, const Package& p) const noexcept
    {
        const FeeFrac own{g.fee[t], vsize[t]}, pkg{p.fee, p.vsize};
        return CompareFeerate(own, pkg) > 0 ? pkg : own;
    }
    /** Ancestors of t (t included) not flagged in `skip`, into scratch. */
    template <typename Skip>
    void CollectAncestors(uint32_t t, Skip skip)
    {
        ++epoch;
        scratch.clear();
        scratch.push_back(t);
        stamp[t] = epoch;
        for (size_t i = 0; i < scratch.size(); ++i) {
            for (uint32_t p : g.Parents(scratch[i])) {
                if (stamp[p] == epoch || skip(p)) continue;
                stamp[p] = epoch;
                scratch.push_back(p);
            }
        }
    }
};

struct Entry {
    FeeFrac score;
    uint32_t rank;
    uint32_t tx;
};
struct EntryBefore {
    bool operator()(const Entry& a, const Entry& b) const noexcept
    {
        const int cmp = CompareFeerate(a.score, b.score);
        if (cmp != 0) return cmp > 0;
        return a.rank < b.rank;
    }
};

} // namespace

Selection BuildBaselineV30(const Graph& g, const Clusters& cl, const Options& o)
{
    const uint32_t n = g.n;
    V30 s(g, o);
    s.vsize.resize(n);
    s.anc.resize(n);
    s.anc_count.resize(n);
    s.stamp.assign(n, 0);
    for (uint32_t t = 0; t < n; ++t) s.vsize[t] = (g.adj_weight[t] + 3) / 4;
    // Full ancestor packages. Internal clusters are contiguous and topological, so for clusters of
    // up to 64 transactions a bit set per transaction holds its ancestors (local positions).
    std::vector<uint64_t> anc_bits;
    for (uint32_t c = 0; c < cl.count; ++c) {
        const uint32_t base = cl.offsets[c], k = cl.Size(c);
        if (k > 64) {
            for (uint32_t t = base; t < base + k; ++t) {
                s.CollectAncestors(t, [](uint32_t) { return false; });
                Package p;
                for (uint32_t a : s.scratch) { p.fee += g.fee[a]; p.vsize += s.vsize[a]; p.sigops += g.sigops[a]; }
                s.anc[t] = p;
                s.anc_count[t] = static_cast<uint32_t>(s.scratch.size());
            }
            continue;
        }
        anc_bits.assign(k, 0);
        for (uint32_t j = 0; j < k; ++j) {
            const uint32_t t = base + j;
            uint64_t bits = uint64_t{1} << j;
            for (uint32_t p : g.Parents(t)) bits |= anc_bits[p - base];
            anc_bits[j] = bits;
            Package pkg;
            for (uint64_t b = bits; b; b &= b - 1) {
                const uint32_t a = base + static_cast<uint32_t>(std::countr_zero(b));
                pkg.fee += g.fee[a];
                pkg.vsize += s.vsize[a];
                pkg.sigops += g.sigops[a];
            }
            s.anc[t] = pkg;
            s.anc_count[t] = static_cast<uint32_t>(std::popcount(bits));
        }
    }
    // mapTx's ancestor_score index, as a heap: only the consumed prefix is ever ordered.
    std::vector<Entry> by_score(n);
    for (uint32_t t = 0; t < n; ++t) by_score[t] = Entry{s.Score(t, s.anc[t]), g.rank[t], t};
    const auto after = [](const Entry& a, const Entry& b) { return EntryBefore{}(b, a); };
    std::make_heap(by_score.begin(), by_score.end(), after);
    size_t heap_size = n;
    const auto pop = [&]() {
        std::pop_heap(by_score.begin(), by_score.begin() + static_cast<std::ptrdiff_t>(heap_size), after);
        --heap_size;
    };

    // mapModifiedTx: current reduced package per tx, and the ordered index over it.
    std::vector<Package> mod(n);
    std::vector<uint8_t> in_mod(n, 0), in_block(n, 0), failed(n, 0);
    std::set<Entry, EntryBefore> modified;
    auto mod_entry = [&](uint32_t t) { return Entry{s.Score(t, mod[t]), g.rank[t], t}; };

    Selection sel;
    int64_t block_weight = o.coinbase_reserve;
    int64_t block_sigops = o.coinbase_sigops;
    int64_t failures = 0;
    std::vector<uint32_t> package, descendants;
    while (heap_size > 0 || !modified.empty()) {
        if (heap_size > 0) {
            const uint32_t t = by_score.front().tx;
            if (in_mod[t] || in_block[t] || failed[t]) { pop(); continue; }
        }
        bool use_modified = false;
        uint32_t tx;
        if (heap_size == 0) {
            tx = modified.begin()->tx;
            use_modified = true;
        } else {
            tx = by_score.front().tx;
            if (!modified.empty() && EntryBefore{}(*modified.begin(), by_score.front())) {
                tx = modified.begin()->tx;
                use_modified = true;
            } else {
                pop();
            }
        }
        const Package pkg = use_modified ? mod[tx] : s.anc[tx];
        // packageFees < blockMinFeeRate.GetFee(packageSize), GetFee rounding up.
        if (static_cast<__int128>(pkg.fee) * 1000 < static_cast<__int128>(o.block_min_fee_sat_kvb) * pkg.vsize) break;
        if (block_weight + 4 * pkg.vsize >= o.weight_limit || block_sigops + pkg.sigops >= o.max_sigop_cost) {
            if (use_modified) {
                modified.erase(mod_entry(tx));
                in_mod[tx] = 0;
                failed[tx] = 1;
            }
            ++failures;
            if (failures > MAX_CONSECUTIVE_FAILURES && block_weight > o.weight_limit - BLOCK_FULL_ENOUGH_WEIGHT_DELTA) break;
            continue;
        }
        failures = 0;
        s.CollectAncestors(tx, [&](uint32_t p) { return in_block[p] != 0; });
        package.assign(s.scratch.begin(), s.scratch.end());
        std::sort(package.begin(), package.end(), [&](uint32_t a, uint32_t b) {
            if (s.anc_count[a] != s.anc_count[b]) return s.anc_count[a] < s.anc_count[b];
            return g.rank[a] < g.rank[b];
        });
        for (uint32_t a : package) {
            sel.txs.push_back(a);
            sel.fee += g.fee[a];
            sel.weight += g.weight[a];
            sel.adj_weight += g.adj_weight[a];
            sel.sigops += g.sigops[a];
            block_weight += g.weight[a];
            block_sigops += g.sigops[a];
            in_block[a] = 1;
            if (in_mod[a]) { modified.erase(mod_entry(a)); in_mod[a] = 0; }
        }
        // UpdatePackagesForAdded: every not-included descendant loses the included ancestor.
        for (uint32_t a : package) {
            ++s.epoch;
            descendants.assign(1, a);
            s.stamp[a] = s.epoch;
            for (size_t i = 0; i < descendants.size(); ++i) {
                for (uint32_t c : g.Children(descendants[i])) {
                    if (s.stamp[c] == s.epoch) continue;
                    s.stamp[c] = s.epoch;
                    descendants.push_back(c);
                }
            }
            for (size_t i = 1; i < descendants.size(); ++i) {
                const uint32_t d = descendants[i];
                if (in_block[d]) continue;
                if (in_mod[d]) {
                    modified.erase(mod_entry(d));
                } else {
                    mod[d] = s.anc[d];
                    in_mod[d] = 1;
                }
                mod[d].fee -= g.fee[a];
                mod[d].vsize -= s.vsize[a];
                mod[d].sigops -= g.sigops[a];
                modified.insert(mod_entry(d));
            }
        }
    }
    return sel;
}

} // namespace opt
