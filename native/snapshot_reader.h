// A native reader of Bitcoin Core's `getrawmempool true` JSON: the file's bytes straight into the
// optimizer's columns (issue 25: the CLI's parse was most of its run). A port of the TypeScript
// scan (src/optimizer/snapshot/coreMempoolScan.ts, jsonBytes.ts, txidTable.ts) with the same
// contract: for any bytes it gives either exactly what `parseCoreMempool(JSON.parse(text))` gives
// (txid rank included), or "gave up", and the caller takes the general path, which gives the same
// answer or the precise error. It gives up on a JSON-RPC envelope, the shared format, a key or
// txid with escapes, an unexpected type in a field it reads, duplicate txids, nesting deeper than
// 64, a number out of the double range, malformed JSON.
//
// Plain C++ (no napi.h): snapshot_wrap.cpp is its N-API edge.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace snapshot {

/** The counters of parseCoreMempool's SnapshotStats (src/optimizer/snapshot/snapshot.ts). */
struct ScanStats {
    uint32_t tx_count{0};
    uint32_t dropped_parents{0};
    uint32_t derived_sigops{0};
    uint32_t weight_from_vsize{0};
    uint32_t clamped_fees{0};
};

/** The columns of one mempool, index-aligned, in file order (= Object.keys order). */
struct ScannedMempool {
    /** n x 64 lowercase display-hex characters, txid i at [64 i, 64 i + 64). */
    std::string txids;
    std::vector<double> fee_sat;
    std::vector<double> base_fee_sat;
    std::vector<uint32_t> weight_wu;
    std::vector<uint32_t> sigop_cost;
    /** CSR: parents of i are parent_indices[parent_offsets[i] .. parent_offsets[i + 1]). Length n + 1. */
    std::vector<uint32_t> parent_offsets;
    std::vector<uint32_t> parent_indices;
    /** Rank of each txid in Core's order (memcmp over the internal, byte-reversed bytes). */
    std::vector<uint32_t> txid_rank;
    ScanStats stats;
};

/** Files from this size on are read in two halves side by side (the second from a member key past
 *  the middle), when a second thread can be had: below it, a thread start is not worth it. */
inline constexpr size_t SPLIT_FROM_BYTES = size_t{1} << 20;

/**
 * Read `getrawmempool true` JSON bytes (not gzip) into `out`. Returns false ("gave up") for
 * anything the general path must answer (see the file comment); `out` is then unspecified.
 * Read in two halves from `split_from` bytes on (the same result: tests pass 0 to split every file).
 * Complexity: O(size) plus O(n log n) for the txid rank.
 */
bool ScanCoreMempool(const uint8_t* bytes, size_t size, ScannedMempool& out, size_t split_from = SPLIT_FROM_BYTES);

enum class FileScan : uint8_t {
    READ,       // `out` holds the file's columns
    GAVE_UP,    // the file is not plain getrawmempool JSON the reader handles: the general path answers
    NOT_MAPPED  // not opened or not mapped (missing, empty, not a regular file, gzip, no mmap): read it another way
};

/**
 * ScanCoreMempool on a file mapped read-only into memory: the page cache's pages are read in place,
 * with no copy into a fresh buffer (an 80 MB copy and its page faults were a third of the CLI's run).
 * A gzip file (magic 1f 8b) is NOT_MAPPED: the caller gunzips it. Complexity: as ScanCoreMempool.
 * Like any mapped read, a file truncated by another process during the scan raises SIGBUS: the CLI
 * reads snapshot files that are not being rewritten (the service never reads through this path).
 */
FileScan ScanCoreMempoolFile(const std::string& path, ScannedMempool& out, size_t split_from = SPLIT_FROM_BYTES);

}  // namespace snapshot
