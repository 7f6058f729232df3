/**
 * `GET /v1/template/block-audits`: the last blocks next to our last optimized template and its
 * baseline for the same parent (optimizer/blockAudit.ts), newest first (rows and summary:
 * `shared/blockAuditRows.ts`).
 */
import { z } from 'zod';
import type { BlockAuditor } from '../../optimizer/blockAudit.js';
import { Success, wholeNumberQuery } from '../schemas.js';
import { BlockAuditRow, blockAuditRow, BlockAuditSummary, blockAuditSummary } from '../shared/blockAuditRows.js';

export const BLOCK_AUDITS_MAX = 1000;

export const BlockAuditsQuery = z.strictObject({
  limit: wholeNumberQuery(BLOCK_AUDITS_MAX, 10),
});

export const BlockAuditsAnswer = z.object({
  success: Success,
  count: z.number().int(),
  keep: z.number().int().describe('Audits kept by this server (BLOCK_AUDIT_KEEP)'),
  summary: BlockAuditSummary,
  audits: z.array(BlockAuditRow),
  note: z.string(),
});

export const BLOCK_AUDIT_NOTE =
  'Each block the node accepted, next to our last optimized template and its baseline built on the same parent: feesLeftOnTableSat = template fees − block fees (base fees; a miner’s coinbase choices and out-of-band transactions make a block differ). A block we had no template for has optimized: null.';

export function blockAuditsAnswer(auditor: BlockAuditor, keep: number, limit: number): z.input<typeof BlockAuditsAnswer> {
  const audits = auditor.audits.slice(0, limit).map(blockAuditRow);
  return { success: true, count: audits.length, keep, summary: blockAuditSummary(auditor), audits, note: BLOCK_AUDIT_NOTE };
}
