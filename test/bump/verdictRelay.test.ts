import { describe, expect, it } from 'vitest';
import { bumpKind, signedTxInputs } from '../../src/bump/relay.js';
import { verdictOf, type VerdictInputs } from '../../src/bump/verdict.js';

// A real one-input one-output transaction (BIP143 P2WPKH example, signed).
const TX =
  '01000000000101db6b1b20aa0fd7b23880be2ecbd4a98130974cf4748fb66092ac4d3ceb1a5477010000001716001479091972186c449eb1ded22b78e40d009bdf0089feffffff02b8b4eb0b000000001976a914a457b684d7f0d539a46a45bbc043f35b59d0d96388ac0008af2f000000001976a914fd270b1ee6abcaea97fea7ad0402e8bd8ad6d77c88ac02473044022047ac8e878352d3ebbde1c94ce3a10d057c24175747116f8288e5d794d12d482f0220217f36a485cae903c713331d877c1f64677e3622ad4010726870540656fe9dcb012103ad1d8e89212f0b92c74d23bb710c00662ad1470198ac48c43f7d6f93a2a2687392040000';

describe('signed transaction checks', () => {
  it('default: decodes the outpoints of one whole transaction, txid in display order', () => {
    expect(signedTxInputs(TX)).toEqual(['77541aeb3c4dac9260b68f74f44c973081a9d4cb2ebe8038b2d70faa201b6bdb:1']);
  });

  it('error: garbage, truncated, trailing bytes and odd lengths are not a transaction', () => {
    for (const bad of ['', 'zz', '0200000001', TX.slice(0, -2), `${TX}00`, `${TX}0`]) expect(signedTxInputs(bad), bad.slice(-8)).toBeNull();
  });

  it('behavior: a replacement spends an input of the named tx, a child one of its outputs, anything else is unrelated', () => {
    const named = { txid: 'aa'.repeat(32), inputs: ['bb'.repeat(32) + ':0'] };
    expect(bumpKind(['bb'.repeat(32) + ':0', 'cc'.repeat(32) + ':1'], named)).toBe('replacement');
    expect(bumpKind(['aa'.repeat(32) + ':3'], named)).toBe('cpfp_child');
    expect(bumpKind(['bb'.repeat(32) + ':1'], named)).toBeNull();
  });
});

describe('verdicts', () => {
  const base: VerdictInputs = {
    status: 'mempool',
    effectiveRateSatVb: 10,
    projectedBlock: 1,
    projectedBlockCount: 8,
    targetSatVb: 5,
    targetBlocks: 2,
    floorSatVb: 1,
  };
  it('default: rate and place both within the target is healthy; one of them at risk; neither below target', () => {
    expect(verdictOf(base)).toBe('healthy_for_target');
    expect(verdictOf({ ...base, projectedBlock: 4 })).toBe('at_risk_for_target');
    expect(verdictOf({ ...base, effectiveRateSatVb: 3 })).toBe('at_risk_for_target');
    expect(verdictOf({ ...base, effectiveRateSatVb: 3, projectedBlock: null })).toBe('below_target_bump_recommended');
    expect(verdictOf({ ...base, effectiveRateSatVb: 0.5 })).toBe('below_min_relay');
    expect(verdictOf({ ...base, status: 'replaced' })).toBe('replaced');
  });
});
