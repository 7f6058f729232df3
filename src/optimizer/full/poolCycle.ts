/**
 * The full cycle without the incremental engine: the mirror's view as typed arrays, warm-started
 * from the previous cycle's linearization, optimized in the piscina pool (off the event loop).
 */
import type { MempoolMirror } from '../../mempool/mirror.js';
import { cycleOutputOf } from '../cache/templateCache.js';
import type { CycleMode, CycleResult, CycleState } from '../cycle.js';
import { snapshotFromMirror } from '../snapshot/mirrorSnapshot.js';
import { warmOrderFromPrevious } from '../snapshot/snapshot.js';
import type { OptimizerPool } from './optimizerPool.js';

export class PoolCycle implements CycleMode {
  constructor(
    private readonly mirror: MempoolMirror,
    private readonly pool: OptimizerPool,
  ) {}

  async run(state: CycleState): Promise<CycleResult> {
    const snapshot = snapshotFromMirror(this.mirror, state.takenAt);
    // Warm start: last cycle's linearization, mapped to this snapshot (never worse than the hint).
    const warm = state.previous?.warm;
    if (warm) snapshot.input.warmOrder = warmOrderFromPrevious({ txids: warm.snapshotTxids, linearization: warm.linearization }, snapshot);
    state.txCount = snapshot.txids.length;

    state.enter('optimize');
    const result = await this.pool.run(snapshot.input, { ...state.options, seed: state.cycle }, state.signal);

    state.enter('publish');
    return { output: cycleOutputOf(snapshot, result), check: null, packMs: null };
  }
}
