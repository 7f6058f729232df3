/**
 * Request limits a route's schema enforces and capabilities announces: stated once here, so the
 * announcement and the schema cannot disagree.
 */

/** Most txids one `POST /v1/template/batch-check` (or `svc_templateBatchCheck`) may name. */
export const BATCH_CHECK_MAX_TXIDS = 10;
/** Most txids one optimized-txids answer lists (and its default). */
export const OPTIMIZED_TXIDS_MAX = 4000;
