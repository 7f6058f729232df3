// Core v30 ancestor-score block assembly; see baseline_v30.h.
#include "baseline_v30.h"

#include "default_init_allocator.h"

#include <algorithm>
#include <array>
#include <bit>
#include <functional>
#include <set>
#include <utility>

namespace opt {

namespace {

constexpr int64_t MAX_CONSECUTIVE_FAILURES = 1000;        // src/node/miner.cpp (v30.0)
constexpr int64_t BLOCK_FULL_ENOUGH_WEIGHT_DELTA = 4000;  // src/node/miner.cpp (v30.0)

/** Ancestor-package totals of a transaction (itself included). Trivial (no member initializers):
 *  the per-transaction tables are written before they are read, so they are not zeroed first. */
struct Package {
    int64_t fee, vsize, sigops;
};
template <typename T>
using Table = std::vector<T, DefaultInitAllocator<T>>;

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
    Table<int64_t> vsize;  // sigop-adjusted vsize per tx
    Table<Package> anc;    // full ancestor packages
    Table<uint32_t> anc_count;
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
                    Package p{};
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
                Package pkg{};
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

    // Assembly state: mapTx's ancestor_score index (ScoreOrder), and mapModifiedTx: the current
    // reduced package per tx and the ordered index over it.
    Table<Package> mod;  // mod[t] is written when t enters mapModifiedTx
    std::vector<uint8_t> in_mod, in_block, failed;
    std::set<Entry, EntryBefore> modified;
    Selection sel;
    std::vector<uint32_t> package, descendants;

    /** mapTx's ancestor_score index, walked from the top. A cycle walks only its top few thousand
     *  (the block, then 1,000 failures), so rather than ordering all n (a heap over the whole
     *  mempool was half of this baseline's time) it takes a batch of about `next` entries, those
     *  whose double key fl(fee / vsize) is at least a threshold read from a sample, sorts them,
     *  and takes the next batch (twice as large) only if the walk gets there. The key is
     *  monotone in the exact rate: a correctly rounded quotient of exact doubles is, fees are
     *  exact (their total is below 2^53, graph.cpp), and so is a package's vsize short of 2^53
     *  vbytes (a chain of ~420,000 transactions each of the largest sigop cost). So every entry of
     *  a batch (key >= its threshold) comes before every entry left (key < it) in EntryBefore's
     *  order; within a batch the key orders, and the exact rate and the rank break its ties. */
    struct ScoreOrder {
        struct Keyed {
            double key;
            uint32_t tx;
        };
        static constexpr size_t SAMPLE = 1024;
        const V30& v;
        Table<Keyed> rest;  // not yet in a batch: [rest_begin, end)
        size_t rest_begin{0};
        std::vector<Entry> batch;  // the current batch, in EntryBefore order
        size_t cursor{0};
        size_t next{4096};

        explicit ScoreOrder(const V30& owner) : v(owner)
        {
            const uint32_t n = v.g.n;
            rest.resize(n);
            for (uint32_t t = 0; t < n; ++t) {
                // min of the two rounded rates = the rounded rate of the exact minimum (Score).
                const double own = static_cast<double>(v.g.fee[t]) / static_cast<double>(v.vsize[t]);
                const double pkg = static_cast<double>(v.anc[t].fee) / static_cast<double>(v.anc[t].vsize);
                rest[t] = Keyed{std::min(own, pkg), t};
            }
        }
        /** Whether an entry is left to walk (taking the next batch when this one is walked). */
        bool Any() { return cursor < batch.size() || Refill(); }
        const Entry& Front() const noexcept { return batch[cursor]; }
        void Pop() noexcept { ++cursor; }

    private:
        bool Refill()
        {
            const auto first = rest.begin() + static_cast<std::ptrdiff_t>(rest_begin);
            const auto end = rest.end();
            auto size = static_cast<size_t>(end - first);
            if (size == 0) return false;
            if (size > 2 * next) {
                // The threshold: the sample's key with about next / size of the sample above it.
                // It is some entry's key, so the batch is never empty.
                std::array<double, SAMPLE> sample;
                const size_t step = size / SAMPLE;
                for (size_t i = 0; i < SAMPLE; ++i) sample[i] = first[static_cast<std::ptrdiff_t>(i * step)].key;
                const size_t at = next * SAMPLE / size;
                std::nth_element(sample.begin(), sample.begin() + static_cast<std::ptrdiff_t>(at), sample.end(), std::greater<>{});
                const double threshold = sample[at];
                size = static_cast<size_t>(std::partition(first, end, [threshold](const Keyed& e) { return e.key >= threshold; }) - first);
            }
            const auto last = first + static_cast<std::ptrdiff_t>(size);
            std::sort(first, last, [this](const Keyed& a, const Keyed& b) {
                if (a.key != b.key) return a.key > b.key;
                return EntryBefore{}(v.AncEntry(a.tx), v.AncEntry(b.tx));
            });
            batch.clear();
            cursor = 0;
            for (auto it = first; it != last; ++it) batch.push_back(v.AncEntry(it->tx));
            rest_begin += size;
            next *= 2;
            return true;
        }
    };

    /** t's entry in mapTx's ancestor_score index, and in mapModifiedTx. */
    Entry AncEntry(uint32_t t) const { return Entry{Score(t, anc[t]), g.rank[t], t}; }
    Entry ModEntry(uint32_t t) const { return Entry{Score(t, mod[t]), g.rank[t], t}; }

    /** addPackageTxs: the best package by ancestor score, until none is left or the block is full. */
    Selection Assemble()
    {
        const uint32_t n = g.n;
        ScoreOrder by_score(*this);
        mod.resize(n);
        in_mod.assign(n, 0);
        in_block.assign(n, 0);
        failed.assign(n, 0);
        int64_t block_weight = o.coinbase_reserve;
        int64_t block_sigops = o.coinbase_sigops;
        int64_t failures = 0;
        while (true) {
            const bool any = by_score.Any();
            if (!any && modified.empty()) break;
            if (any) {
                const uint32_t t = by_score.Front().tx;
                if (in_mod[t] || in_block[t] || failed[t]) {
                    by_score.Pop();
                    continue;
                }
            }
            bool use_modified = false;
            const uint32_t tx = NextCandidate(by_score, any, use_modified);
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

    /** The better of the index's top (any: there is one) and mapModifiedTx's best (popping the
     *  index's when it is taken). */
    uint32_t NextCandidate(ScoreOrder& by_score, bool any, bool& use_modified)
    {
        if (!any || (!modified.empty() && EntryBefore{}(*modified.begin(), by_score.Front()))) {
            use_modified = true;
            return modified.begin()->tx;
        }
        const uint32_t tx = by_score.Front().tx;
        by_score.Pop();
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
