/**
 * Bitcoin Core's relay policy defaults that both the service (the bump planner) and the simulated
 * node follow, once. Sources: src/policy/policy.h, src/policy/rbf.h, src/policy/truc_policy.h of
 * Core v31 (and v29.0 for the legacy relay fee). Fee rates sat/kvB, sizes vbytes.
 */

/** `-minrelaytxfee` default since v29.1/v30.0: 0.1 sat/vB. */
export const MIN_RELAY_FEE_SAT_KVB = 100;
/** `-incrementalrelayfee` default since v29.1/v30.0: 0.1 sat/vB. */
export const INCREMENTAL_RELAY_FEE_SAT_KVB = 100;
/** Incremental relay and min relay fee of Core v29.0 and older: 1 sat/vB. */
export const LEGACY_RELAY_FEE_SAT_KVB = 1_000;
/** `-dustrelayfee` default: 3 sat/vB. */
export const DUST_RELAY_FEE_SAT_KVB = 3_000;

/** v31 cluster limits (`-limitclustercount`, `-limitclustersize` in kvB × 1000). */
export const CLUSTER_COUNT_LIMIT = 64;
export const CLUSTER_SIZE_LIMIT_VB = 101_000;
/** RBF rule 5: v31 limits the clusters direct conflicts touch, v30 and older the originals, to this many. */
export const MAX_REPLACEMENT_CANDIDATES = 100;

/** TRUC (BIP 431): the version, the largest TRUC transaction and the largest TRUC child. */
export const TRUC_VERSION = 3;
export const TRUC_MAX_VSIZE = 10_000;
export const TRUC_CHILD_MAX_VSIZE = 1_000;
