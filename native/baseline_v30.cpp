// Core v30 ancestor-score block assembly; see baseline_v30.h.
#include "baseline_v30.h"

#include <algorithm>
#include <bit>
#include <set>
#include <utility>

namespace opt {

namespace {

constexpr int64_t MAX_CONSECUTIVE_FAILURES = 1000;        // src/node/miner.cpp (v30.0)
constexpr int64_t BLOCK_FULL_ENOUGH_WEIGHT_DELTA = 4000;  // src/node/miner.cpp (v30.0)

/** Ancestor-package totals of a transaction (itself included). */
struct Package {
    int64_t fee{0}, vsize{0}, sigops{0};
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

struct V30 {
    const Graph& g;
    const Options& o;
    std::vector<int64_t> vsize;  // sigop-adjusted vsize per tx
    std::vector<Package> anc;    // full ancestor packages
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

    /** Full ancestor packages. Internal clusters are contiguous and topological, so for clusters of
     *  up to 64 transactions a bit set per transaction holds its ancestors (local positions). */
    void ComputeAncestorPackages(const Clusters& cl)
    {
        const uint32_t n = g.n;
        vsize.resize(n);
        anc.resize(n);
        anc_count.resize(n);
        stamp.assign(n, 0);
        for (uint32_t t = 0; t < n; ++t) vsize[t] = (g.adj_weight[t] + 3) / 4;
        std::vector<uint64_t> anc_bits;
        for (uint32_t c = 0; c < cl.count; ++c) {
            const uint32_t base = cl.offsets[c], k = cl.Size(c);
            if (k > 64) {
                for (uint32_t t = base; t < base + k; ++t) {
                    CollectAncestors(t, [](uint32_t) { return false; });
                    Package p;
                    for (uint32_t a : scratch) {
                        p.fee += g.fee[a];
                        p.vsize += vsize[a];
                        p.sigops += g.sigops[a];
                    }
                    anc[t] = p;
                    anc_count[t] = static_cast<uint32_t>(scratch.size());
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
                    pkg.vsize += vsize[a];
                    pkg.sigops += g.sigops[a];
                }
                anc[t] = pkg;
                anc_count[t] = static_cast<uint32_t>(std::popcount(bits));
            }
        }
    }

    // Assembly state: mapTx's ancestor_score index as a heap (only the consumed prefix is ever
    // ordered), and mapModifiedTx: the current reduced package per tx and the ordered index over it.
    std::vector<Entry> by_score;
    size_t heap_size{0};
    std::vector<Package> mod;
    std::vector<uint8_t> in_mod, in_block, failed;
    std::set<Entry, EntryBefore> modified;
    Selection sel;
    std::vector<uint32_t> package, descendants;

    /** The heap's comparison, as a type (not a function pointer) so the heap's calls inline it. */
    struct After {
        bool operator()(const Entry& a, const Entry& b) const noexcept { return EntryBefore{}(b, a); }
    };
    void Pop()
    {
        std::pop_heap(by_score.begin(), by_score.begin() + static_cast<std::ptrdiff_t>(heap_size), After{});
        --heap_size;
    }
    Entry ModEntry(uint32_t t) const { return Entry{Score(t, mod[t]), g.rank[t], t}; }

    /** addPackageTxs: the best package by ancestor score, until none is left or the block is full. */
    Selection Assemble()
    {
        const uint32_t n = g.n;
        by_score.resize(n);
        for (uint32_t t = 0; t < n; ++t) by_score[t] = Entry{Score(t, anc[t]), g.rank[t], t};
        std::make_heap(by_score.begin(), by_score.end(), After{});
        heap_size = n;
        mod.resize(n);
        in_mod.assign(n, 0);
        in_block.assign(n, 0);
        failed.assign(n, 0);
        int64_t block_weight = o.coinbase_reserve;
        int64_t block_sigops = o.coinbase_sigops;
        int64_t failures = 0;
        while (heap_size > 0 || !modified.empty()) {
            if (heap_size > 0) {
                const uint32_t t = by_score.front().tx;
                if (in_mod[t] || in_block[t] || failed[t]) {
                    Pop();
                    continue;
                }
            }
            bool use_modified = false;
            const uint32_t tx = NextCandidate(use_modified);
            const Package pkg = use_modified ? mod[tx] : anc[tx];
            // packageFees < blockMinFeeRate.GetFee(packageSize), GetFee rounding up.
            if (static_cast<__int128>(pkg.fee) * 1000 < static_cast<__int128>(o.block_min_fee_sat_kvb) * pkg.vsize) break;
            if (block_weight + 4 * pkg.vsize >= o.weight_limit || block_sigops + pkg.sigops >= o.max_sigop_cost) {
                if (use_modified) {
                    modified.erase(ModEntry(tx));
                    in_mod[tx] = 0;
                    failed[tx] = 1;
                }
                ++failures;
                if (failures > MAX_CONSECUTIVE_FAILURES && block_weight > o.weight_limit - BLOCK_FULL_ENOUGH_WEIGHT_DELTA) break;
                continue;
            }
            failures = 0;
            AddPackage(tx, block_weight, block_sigops);
            UpdatePackagesForAdded();
        }
        return std::move(sel);
    }

    /** The better of the heap's top and mapModifiedTx's best (popping the heap's when it is taken). */
    uint32_t NextCandidate(bool& use_modified)
    {
        if (heap_size == 0) {
            use_modified = true;
            return modified.begin()->tx;
        }
        if (!modified.empty() && EntryBefore{}(*modified.begin(), by_score.front())) {
            use_modified = true;
            return modified.begin()->tx;
        }
        const uint32_t tx = by_score.front().tx;
        Pop();
        return tx;
    }

    /** Add tx with its not-included ancestors, in Core's order (ancestor count, then txid). */
    void AddPackage(uint32_t tx, int64_t& block_weight, int64_t& block_sigops)
    {
        CollectAncestors(tx, [&](uint32_t p) { return in_block[p] != 0; });
        package.assign(scratch.begin(), scratch.end());
        std::sort(package.begin(), package.end(), [&](uint32_t a, uint32_t b) {
            if (anc_count[a] != anc_count[b]) return anc_count[a] < anc_count[b];
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
            if (in_mod[a]) {
                modified.erase(ModEntry(a));
                in_mod[a] = 0;
            }
        }
    }

    /** UpdatePackagesForAdded: every not-included descendant loses the included ancestor. */
    void UpdatePackagesForAdded()
    {
        for (uint32_t a : package) {
            ++epoch;
            descendants.assign(1, a);
            stamp[a] = epoch;
            for (size_t i = 0; i < descendants.size(); ++i) {
                for (uint32_t c : g.Children(descendants[i])) {
                    if (stamp[c] == epoch) continue;
                    stamp[c] = epoch;
                    descendants.push_back(c);
                }
            }
            for (size_t i = 1; i < descendants.size(); ++i) {
                const uint32_t d = descendants[i];
                if (in_block[d]) continue;
                if (in_mod[d]) {
                    modified.erase(ModEntry(d));
                } else {
                    mod[d] = anc[d];
                    in_mod[d] = 1;
                }
                mod[d].fee -= g.fee[a];
                mod[d].vsize -= vsize[a];
                mod[d].sigops -= g.sigops[a];
                modified.insert(ModEntry(d));
            }
        }
    }
};

}  // namespace

Selection BuildBaselineV30(const Graph& g, const Clusters& cl, const Options& o)
{
    V30 s(g, o);
    s.ComputeAncestorPackages(cl);
    return s.Assemble();
}

}  // namespace opt
