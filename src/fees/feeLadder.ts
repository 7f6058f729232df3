/**
 * The fee ladder (urgent / normal / cheap, sat/vB) from the optimizer's projected blocks and the
 * node's history-based estimate.
 *
 * - `cutoff(k)`: the lowest chunk fee rate in projected block k when that block is full; when the
 *   projected blocks run out before k (the mempool clears sooner), the floor.
 * - urgent = cutoff(1) × 1.05 + 0.1, so the tx lands in the next block with a margin over arrivals;
 * - normal = cutoff(targetBlocks) when projected block targetBlocks is full, else Core's
 *   `estimatesmartfee(targetBlocks)` (arrivals decide), falling back to the cutoff/floor;
 * - cheap = the lower of normal and Core's `estimatesmartfee(144)` (about a day) or, without it,
 *   the last projected cutoff.
 * Every rung is at least the node's floor (mempool minimum / min relay), rounded up to 0.1 sat/vB,
 * and the ladder is kept monotone (urgent ≥ normal ≥ cheap).
 */
import { round } from '../util/round.js';

export interface ProjectedBlockSummary {
  /** Lowest chunk fee rate in the block, sat/vB. */
  minFeeRateSatVb: number;
  /** True when the block is (nearly) full, so its lowest rate is a real cutoff. */
  full: boolean;
}

export interface FeeLadderInputs {
  targetBlocks: number;
  projectedBlocks: readonly ProjectedBlockSummary[];
  floorSatVb: number;
  /** `estimatesmartfee(targetBlocks)` in sat/vB, when the node has one. */
  smartTargetSatVb: number | null;
  /** `estimatesmartfee(144)` in sat/vB, when the node has one. */
  smartDaySatVb: number | null;
}

export interface FeeLadderRung {
  satVb: number;
  useWhen: string;
  derivation: string;
}

export interface FeeLadder {
  urgent: FeeLadderRung;
  normal: FeeLadderRung;
  cheap: FeeLadderRung;
}

const URGENT_MULTIPLIER = 1.05;
const URGENT_MARGIN_SAT_VB = 0.1;

function up(x: number): number {
  return Math.ceil(x * 10 - 1e-9) / 10;
}

/** O(projected blocks). */
export function feeLadder(inputs: FeeLadderInputs): FeeLadder {
  const { targetBlocks, projectedBlocks, floorSatVb } = inputs;
  const floor = up(floorSatVb);
  const cutoff = (k: number): number => {
    const block = projectedBlocks[k - 1];
    return block && block.full ? block.minFeeRateSatVb : floorSatVb;
  };
  /** What `cutoff(k)` used, in words: a full block's lowest rate, or the floor (not full, or beyond the projection). */
  const cutoffSource = (k: number): string => {
    const block = projectedBlocks[k - 1];
    if (!block) return `the floor (${round(floorSatVb)}; the projection ends before block ${k})`;
    return block.full
      ? `lowest chunk fee rate of projected block ${k} (${round(block.minFeeRateSatVb)}; the block is full)`
      : `the floor (${round(floorSatVb)}; projected block ${k} is not full)`;
  };
  const lastBlock = Math.max(1, projectedBlocks.length);
  const lastCutoff = cutoff(lastBlock);
  /** A rung raised to the floor says so. */
  const floored = (value: number, raw: number) => (value === floor && up(raw) < floor ? `; raised to the floor (${floor})` : '');

  const urgent = Math.max(floor, up(cutoff(1) * URGENT_MULTIPLIER + URGENT_MARGIN_SAT_VB));
  const inProjection = targetBlocks <= projectedBlocks.length;
  // A full projected block at the target gives a real cutoff. When the queue clears sooner, arrivals
  // before the target decide, and Core's history (estimatesmartfee) is the better guide.
  const targetFull = inProjection && (projectedBlocks[targetBlocks - 1]?.full ?? false);
  const normalRaw = targetFull ? cutoff(targetBlocks) : (inputs.smartTargetSatVb ?? (inProjection ? cutoff(targetBlocks) : lastCutoff));
  const normal = Math.min(urgent, Math.max(floor, up(normalRaw)));
  const cheapRaw = inputs.smartDaySatVb ?? lastCutoff;
  const cheap = Math.min(normal, Math.max(floor, up(cheapRaw)));

  return {
    urgent: {
      satVb: urgent,
      useWhen: 'It must confirm in the next block.',
      derivation: `${cutoffSource(1)} × ${URGENT_MULTIPLIER} + ${URGENT_MARGIN_SAT_VB}${floored(urgent, cutoff(1) * URGENT_MULTIPLIER + URGENT_MARGIN_SAT_VB)}`,
    },
    normal: {
      satVb: normal,
      useWhen: `Confirmation within about ${targetBlocks} block${targetBlocks === 1 ? '' : 's'} (~${targetBlocks * 10} minutes) is fine.`,
      derivation:
        (targetFull
          ? cutoffSource(targetBlocks)
          : inputs.smartTargetSatVb !== null
            ? `${inProjection ? `projected block ${targetBlocks} is not full (the queue clears sooner)` : `beyond the ${projectedBlocks.length} projected blocks`}: Core estimatesmartfee(${targetBlocks}) = ${round(normalRaw)}, capped at urgent`
            : `${inProjection ? 'no Core estimate' : 'beyond the projection and no Core estimate'}: ${cutoffSource(inProjection ? targetBlocks : lastBlock)}`) +
        floored(normal, normalRaw),
    },
    cheap: {
      satVb: cheap,
      useWhen: 'No hurry: confirmation within about a day; may wait through fee spikes.',
      derivation:
        (inputs.smartDaySatVb !== null
          ? `Core estimatesmartfee(144) = ${round(cheapRaw)}, capped at normal`
          : `no Core estimate for 144 blocks: ${cutoffSource(lastBlock)}, capped at normal`) + floored(cheap, cheapRaw),
    },
  };
}
