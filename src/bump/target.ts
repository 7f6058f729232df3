/**
 * The target rate of a plan: the caller's `targetSatVb`, else the fee ladder's `normal` rung for
 * `targetBlocks` (the same numbers as `POST /v1/template/fee-ladder`: the cutoff of projected block
 * targetBlocks when it is full, else Core's estimate), never below the node floor.
 */
import { feeLadder, type ProjectedBlockSummary } from '../fees/feeLadder.js';
import type { TargetRate } from './types.js';

export interface TargetInputs {
  targetSatVb: number | undefined;
  targetBlocks: number;
  projectedBlocks: readonly ProjectedBlockSummary[];
  floorSatVb: number;
  smartTargetSatVb: number | null;
  smartDaySatVb: number | null;
}

export function chooseTarget(inputs: TargetInputs): TargetRate {
  if (inputs.targetSatVb !== undefined) {
    return { satVb: inputs.targetSatVb, source: 'caller', targetBlocks: inputs.targetBlocks, derivation: `targetSatVb ${inputs.targetSatVb} from the request` };
  }
  const { normal } = feeLadder({
    targetBlocks: inputs.targetBlocks,
    projectedBlocks: inputs.projectedBlocks,
    floorSatVb: inputs.floorSatVb,
    smartTargetSatVb: inputs.smartTargetSatVb,
    smartDaySatVb: inputs.smartDaySatVb,
  });
  return { satVb: normal.satVb, source: 'fee_ladder', targetBlocks: inputs.targetBlocks, derivation: `fee ladder normal rung: ${normal.derivation}` };
}
