/** The template family's request bodies (named as the specification names them) and its batch answer. */
import { z } from 'zod';
import { Freshness, strictObject, Success, TargetBlocks, Txid } from '../schemas.js';
import { TargetSatVb } from '../shared/bumpPlan.js';
import { BATCH_CHECK_MAX_TXIDS, OPTIMIZED_TXIDS_MAX } from '../shared/requestLimits.js';
import { specNamed } from '../specNames.js';
import { TemplateCheck } from './templateAnswers.js';

/** An absent body (fastify gives null) is an empty object: these bodies are optional. */
const optionalBody = <T extends z.ZodType>(schema: T) => z.preprocess((v) => v ?? {}, schema);

export const TxidRequest = specNamed(strictObject({ txid: Txid, targetBlocks: TargetBlocks }), 'TxidRequest');
/** The specification's TxidRequest, widened by the optional `targetSatVb`. */
export const BumpPlanRequest = specNamed(
  strictObject({ txid: Txid, targetBlocks: TargetBlocks, targetSatVb: TargetSatVb.optional() }),
  'BumpPlanRequest',
  'TxidRequest',
);
export const BatchTxidRequest = specNamed(
  strictObject({ txids: z.array(Txid).min(1).max(BATCH_CHECK_MAX_TXIDS), targetBlocks: TargetBlocks }),
  'BatchTxidRequest',
);
export const TargetBlocksObject = strictObject({ targetBlocks: TargetBlocks });
export const TargetBlocksRequest = specNamed(optionalBody(TargetBlocksObject), 'TargetBlocksRequest');
export const OptimizedTxidsObject = strictObject({ maxTxids: z.number().int().min(1).max(OPTIMIZED_TXIDS_MAX).default(OPTIMIZED_TXIDS_MAX) });
export const OptimizedTxidsRequest = optionalBody(OptimizedTxidsObject);

export const BatchCheckAnswer = z.object({
  success: Success,
  targetBlocks: z.number().int(),
  count: z.number().int(),
  ...Freshness,
  cachedAt: z.string(),
  results: z.array(TemplateCheck),
});
