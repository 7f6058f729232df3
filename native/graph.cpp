// Input validation: every check names the array and transaction that failed, so a JavaScript
// caller can find the bad entry. See graph.h for the invariants established here.
#include "graph.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "option_ranges.h"

namespace opt {

namespace {

constexpr double MAX_FEE = 9007199254740991.0;  // 2^53 - 1: the largest exact integer in a double

std::string Tx(uint32_t i) { return "transaction " + std::to_string(i); }

void RequireLength(const char* name, size_t actual, size_t expected)
{
    if (actual != expected) {
        throw InputError(ErrorCode::LENGTH_MISMATCH, std::string(name) + " has length " + std::to_string(actual) +
                                                         ", expected " + std::to_string(expected));
    }
}

/** The arrays' lengths agree; returns the transaction count. */
uint32_t CheckLengths(const InputView& in)
{
    const size_t n_size = in.fee.size();
    if (n_size >= 0xffffffffULL) throw InputError(ErrorCode::INVALID_ARGUMENT, "too many transactions");
    const auto n = static_cast<uint32_t>(n_size);
    RequireLength("weightWu", in.weight.size(), n);
    if (!in.sigops.empty()) RequireLength("sigopCost", in.sigops.size(), n);
    RequireLength("parentOffsets", in.parent_offsets.size(), size_t{n} + 1);
    RequireLength("txidRank", in.txid_rank.size(), n);
    if (in.warm_order.size() > n) {
        throw InputError(ErrorCode::INVALID_WARM_ORDER, "warmOrder has length " + std::to_string(in.warm_order.size()) +
                                                            ", more than the " + std::to_string(n) + " transactions");
    }
    return n;
}

/** Fees (integers whose total stays exact), weights (> 0) and sigops, with the sigop-adjusted weight. */
void CopyTxs(const InputView& in, Graph& g)
{
    const uint32_t n = g.n;
    double total_fee = 0;  // every fee sum (chunks, packages, templates) must stay exact in int64
    for (uint32_t i = 0; i < n; ++i) {
        const double f = in.fee[i];
        if (!std::isfinite(f) || f < 0 || f > MAX_FEE || f != std::floor(f)) {
            throw InputError(ErrorCode::INVALID_FEE, "feeSat[" + std::to_string(i) + "] = " + std::to_string(f) +
                                                         " is not an integer number of satoshis in [0, 2^53)");
        }
        g.fee[i] = static_cast<int64_t>(f);
        total_fee += f;
        if (total_fee > MAX_FEE) {
            throw InputError(ErrorCode::INVALID_FEE, "the total of feeSat exceeds 2^53 - 1 satoshis (at feeSat[" + std::to_string(i) + "])");
        }
        if (in.weight[i] == 0) throw InputError(ErrorCode::INVALID_WEIGHT, "weightWu[" + std::to_string(i) + "] is 0");
        g.weight[i] = in.weight[i];
        if (!in.sigops.empty()) g.sigops[i] = in.sigops[i];
        g.adj_weight[i] = std::max(g.weight[i], g.sigops[i] * BYTES_PER_SIGOP);
    }
}

/** Tie-break ranks must be a permutation. */
void CopyRanks(const InputView& in, Graph& g)
{
    const uint32_t n = g.n;
    g.rank.assign(in.txid_rank.begin(), in.txid_rank.end());
    std::vector<uint8_t> seen(n, 0);
    for (uint32_t i = 0; i < n; ++i) {
        const uint32_t r = g.rank[i];
        if (r >= n || seen[r]) {
            throw InputError(ErrorCode::INVALID_RANK, "txidRank[" + std::to_string(i) + "] = " + std::to_string(r) +
                                                          (r >= n ? " is out of range" : " is a duplicate") +
                                                          " (txidRank must be a permutation of 0..n-1)");
        }
        seen[r] = 1;
    }
}

/** Parent CSR: shape, range, self-loops; copy without duplicates. */
void CopyParents(const InputView& in, Graph& g)
{
    const uint32_t n = g.n;
    const auto& off = in.parent_offsets;
    if (off[0] != 0) throw InputError(ErrorCode::INVALID_ARGUMENT, "parentOffsets[0] must be 0");
    if (off[n] != in.parent_indices.size()) {
        throw InputError(ErrorCode::LENGTH_MISMATCH, "parentOffsets[n] = " + std::to_string(off[n]) +
                                                         " but parentIndices has length " + std::to_string(in.parent_indices.size()));
    }
    g.parent_offsets.resize(size_t{n} + 1);
    g.parents.reserve(in.parent_indices.size());
    for (uint32_t i = 0; i < n; ++i) {
        if (off[i + 1] < off[i]) {
            throw InputError(ErrorCode::INVALID_ARGUMENT, "parentOffsets is not monotone at index " + std::to_string(i + 1));
        }
        const auto start = static_cast<uint32_t>(g.parents.size());
        g.parent_offsets[i] = start;
        for (uint32_t k = off[i]; k < off[i + 1]; ++k) {
            const uint32_t p = in.parent_indices[k];
            if (p >= n) {
                throw InputError(ErrorCode::INDEX_OUT_OF_RANGE, "parentIndices[" + std::to_string(k) + "] = " + std::to_string(p) +
                                                                    " (a parent of " + Tx(i) + ") is out of range [0, " + std::to_string(n) + ")");
            }
            if (p == i) throw InputError(ErrorCode::CYCLE, Tx(i) + " lists itself as a parent");
            // Parent lists are short: a linear duplicate scan beats a global stamp array.
            if (std::find(g.parents.begin() + start, g.parents.end(), p) != g.parents.end()) continue;
            g.parents.push_back(p);
        }
    }
    g.parent_offsets[n] = static_cast<uint32_t>(g.parents.size());
}

/** The warm start hint: indices in range, no duplicates (missing transactions are allowed). */
void CheckWarmOrder(const InputView& in, uint32_t n)
{
    if (in.warm_order.empty()) return;
    std::vector<uint8_t> seen(n, 0);
    for (size_t k = 0; k < in.warm_order.size(); ++k) {
        const uint32_t t = in.warm_order[k];
        if (t >= n || seen[t]) {
            throw InputError(ErrorCode::INVALID_WARM_ORDER, "warmOrder[" + std::to_string(k) + "] = " + std::to_string(t) +
                                                                (t >= n ? " is out of range" : " is a duplicate"));
        }
        seen[t] = 1;
    }
}

}  // namespace

const char* ErrorCodeName(ErrorCode code) noexcept
{
    switch (code) {
    case ErrorCode::INVALID_ARGUMENT: return "INVALID_ARGUMENT";
    case ErrorCode::LENGTH_MISMATCH: return "LENGTH_MISMATCH";
    case ErrorCode::INDEX_OUT_OF_RANGE: return "INDEX_OUT_OF_RANGE";
    case ErrorCode::CYCLE: return "CYCLE";
    case ErrorCode::INVALID_FEE: return "INVALID_FEE";
    case ErrorCode::INVALID_WEIGHT: return "INVALID_WEIGHT";
    case ErrorCode::INVALID_RANK: return "INVALID_RANK";
    case ErrorCode::INVALID_WARM_ORDER: return "INVALID_WARM_ORDER";
    case ErrorCode::INTERNAL: return "INTERNAL";
    }
    return "INTERNAL";
}

#ifdef OPTIMIZER_DEBUG
void AssumeFailed(const char* expr, const char* file, int line) noexcept
{
    std::fprintf(stderr, "optimizer: assumption failed: %s (%s:%d)\n", expr, file, line);
    std::abort();
}
#endif

void ValidateOptions(const Options& o)
{
    auto bad = [](const std::string& msg) { throw InputError(ErrorCode::INVALID_ARGUMENT, msg); };
    auto in_range = [&](int64_t v, const ranges::IntRange& r) {
        if (v < r.min || v > r.max) bad(std::string(r.name) + " must be in [" + std::to_string(r.min) + ", " + std::to_string(r.max) + "]");
    };
    in_range(o.weight_limit, ranges::WEIGHT_LIMIT_WU);
    if (o.coinbase_reserve < 0 || o.coinbase_reserve >= o.weight_limit) bad("coinbaseReserveWu must be in [0, weightLimitWu)");
    in_range(o.max_sigop_cost, ranges::MAX_SIGOP_COST);
    if (o.coinbase_sigops < 0 || o.coinbase_sigops >= o.max_sigop_cost) bad("coinbase sigop reserve must be in [0, maxSigopCost)");
    in_range(o.max_tx_count, ranges::MAX_TX_COUNT);
    // sat/kvB inside, sat/vB in the table.
    constexpr auto rate = ranges::MIN_FEE_RATE_SAT_VB;
    if (o.min_fee_rate_sat_kvb < rate.min * 1000 || o.min_fee_rate_sat_kvb > rate.max * 1000) {
        char bounds[64];
        std::snprintf(bounds, sizeof bounds, "[%g, %g]", rate.min, rate.max);
        bad(std::string(rate.name) + " must be in " + bounds);
    }
    in_range(o.projected_blocks, ranges::PROJECTED_BLOCKS);
    in_range(o.tail_window_pct, ranges::TAIL_WINDOW_PCT);
    in_range(o.threads, ranges::THREADS);
}

void ValidateLengths(const InputView& in, Graph& g) { g.n = CheckLengths(in); }

void ValidateColumns(const InputView& in, Graph& g)
{
    g.fee.resize(g.n);
    g.weight.resize(g.n);
    g.adj_weight.resize(g.n);
    g.sigops.assign(g.n, 0);
    CopyTxs(in, g);
    CopyRanks(in, g);
}

void ValidateLinks(const InputView& in, Graph& g)
{
    CopyParents(in, g);
    CheckWarmOrder(in, g.n);
}

Graph ValidateInput(const InputView& in)
{
    Graph g;
    ValidateLengths(in, g);
    ValidateColumns(in, g);
    ValidateLinks(in, g);
    return g;
}

void FillChildren(Graph& g)
{
    const uint32_t n = g.n;
    g.child_offsets.assign(size_t{n} + 1, 0);
    for (uint32_t p : g.parents) ++g.child_offsets[p + 1];
    for (uint32_t i = 0; i < n; ++i) g.child_offsets[i + 1] += g.child_offsets[i];
    g.children.resize(g.parents.size());
    std::vector<uint32_t> fill(g.child_offsets.begin(), g.child_offsets.end() - 1);
    for (uint32_t c = 0; c < n; ++c) {
        for (uint32_t p : g.Parents(c)) g.children[fill[p]++] = c;
    }
}

}  // namespace opt
