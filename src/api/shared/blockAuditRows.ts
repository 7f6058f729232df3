/**
 * A block audit as answered (one block next to our optimized template and its baseline for the same
 * parent, optimizer/blockAudit.ts) and the audits' summary: shared by `GET /v1/template/block-audits`
 * and cache statistics.
 */
import { z } from 'zod';
import { isoFromMs } from '../../bitcoin/units.js';
import type { BlockAudit, BlockAuditor } from '../../optimizer/blockAudit.js';
import { round } from '../../util/round.js';
import { Hash, IsoTime, Sat } from '../schemas.js';

const Side = z.object({
  txCount: z.number().int(),
  feeSat: Sat,
  weightWu: z.number().int(),
  notInBlock: z.number().int().describe('Its transactions the block did not include'),
  blockTxsNotInIt: z.number().int().describe('The block’s transactions it did not include'),
  matchRate: z.number().describe('Share of its transactions the block included (0..1)'),
  feesLeftOnTableSat: Sat.describe('Its fees − the block’s fees (negative: the block earned more)'),
});

export const BlockAuditRow = z.object({
  height: z.number().int(),
  hash: Hash,
  previousBlockHash: Hash,
  time: IsoTime,
  auditedAt: IsoTime,
  block: z
    .object({ txCount: z.number().int(), feeSat: Sat, weightWu: z.number().int() })
    .describe('The block’s transactions, coinbase left out (fees as the node gives them)'),
  optimized: Side.extend({ cycle: z.number().int(), cachedAt: IsoTime })
    .nullable()
    .describe('Our last optimized template for the same parent; null when none was published for it'),
  baseline: Side.extend({ source: z.enum(['node_getblocktemplate', 'native_v31']) }).nullable(),
});

export const BlockAuditSummary = z.object({
  blocks: z.number().int().describe('Blocks audited and kept'),
  withTemplate: z.number().int().describe('Of them, blocks we had an optimized template for'),
  feesLeftOnTableSat: Sat.describe('Sum over those blocks of optimized fees − block fees'),
  meanMatchRate: z.number().nullable(),
  failures: z.number().int(),
  last: BlockAuditRow.nullable(),
});

export function blockAuditRow(a: BlockAudit): z.input<typeof BlockAuditRow> {
  return {
    ...a,
    time: isoFromMs(a.time * 1000) ?? '',
    auditedAt: isoFromMs(a.auditedAt) ?? '',
    optimized: a.optimized ? { ...a.optimized, matchRate: round(a.optimized.matchRate, 6), cachedAt: isoFromMs(a.optimized.cachedAt) ?? '' } : null,
    baseline: a.baseline ? { ...a.baseline, matchRate: round(a.baseline.matchRate, 6) } : null,
  };
}

export function blockAuditSummary(auditor: BlockAuditor): z.input<typeof BlockAuditSummary> {
  const withTemplate = auditor.audits.flatMap((a) => (a.optimized ? [a.optimized] : []));
  const last = auditor.audits[0];
  return {
    blocks: auditor.audits.length,
    withTemplate: withTemplate.length,
    feesLeftOnTableSat: withTemplate.reduce((s, o) => s + o.feesLeftOnTableSat, 0),
    meanMatchRate: withTemplate.length ? round(withTemplate.reduce((s, o) => s + o.matchRate, 0) / withTemplate.length, 6) : null,
    failures: auditor.failures,
    last: last ? blockAuditRow(last) : null,
  };
}
