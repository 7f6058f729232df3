/**
 * Where the real mainnet mempool snapshots are (`../shared/data/mempool`, read in place, never
 * copied into the repository), for the tests and benches that run on them.
 */
import { existsSync, readdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseCoreMempool, type MempoolSnapshot } from '../../src/optimizer/snapshot/snapshot.js';

const ROOT = resolve(import.meta.dirname, '../..');

/** Next to the repository (/work/main) or one level up from a worktree (/work/wt/<name>); MEMPOOL_SNAPSHOT_DIR overrides both. */
export const MEMPOOL_SNAPSHOT_DIR =
  process.env.MEMPOOL_SNAPSHOT_DIR ??
  [resolve(ROOT, '../shared/data/mempool'), resolve(ROOT, '../../shared/data/mempool')].find((d) => existsSync(d)) ??
  resolve(ROOT, '../shared/data/mempool');

/** The `mainnet-*.json.gz` files in that folder, sorted; none where it is absent (callers skip with a message). */
export function mainnetSnapshotFiles(): string[] {
  if (!existsSync(MEMPOOL_SNAPSHOT_DIR)) return [];
  return readdirSync(MEMPOOL_SNAPSHOT_DIR)
    .filter((f) => f.startsWith('mainnet-') && f.endsWith('.json.gz'))
    .sort();
}

/** What the general path (JSON.parse + parseCoreMempool) gives for a file's text, or the error it
 *  throws: the reference the snapshot readers are held to. */
export function reference(text: string): { snapshot: MempoolSnapshot } | { error: unknown } {
  try {
    return { snapshot: parseCoreMempool(JSON.parse(text)) };
  } catch (error) {
    return { error };
  }
}
