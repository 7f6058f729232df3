/**
 * The simulated chain as a user of Core's RPC sees it, through `bitcoin-core` and `BitcoinNode`:
 * real hashes, proof of work, merkle roots, BIP34 and witness commitments, fees that add up, and
 * mining that empties the mempool into the chain.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimnet, type SimnetHandle } from '../../src/simnet/index.js';
import type { BitcoinNode } from '../../src/node/bitcoinNode.js';
import { bitcoinNode, coreClient, sats, TEST_SIM, type CoreClient } from './helpers.js';

const sha256d = (b: Buffer): Buffer => createHash('sha256').update(createHash('sha256').update(b).digest()).digest();
const display = (b: Buffer): string => Buffer.from(b).reverse().toString('hex');

function merkle(hashes: string[]): string {
  let level: Buffer[] = hashes.map((h) => Buffer.from(h, 'hex').reverse());
  while (level.length > 1) {
    const next: Buffer[] = [];
    for (let i = 0; i < level.length; i += 2) next.push(sha256d(Buffer.concat([level[i]!, level[i + 1] ?? level[i]!])));
    level = next;
  }
  return display(level[0]!);
}

let sim: SimnetHandle;
let node: BitcoinNode;
let client: CoreClient;

beforeAll(async () => {
  sim = await startSimnet({ seed: 11, initialTxs: 400, ...TEST_SIM });
  node = bitcoinNode(sim.rpcUrl);
  client = coreClient(sim.rpcUrl);
});
afterAll(() => sim?.close());

describe('simulated chain', () => {
  it('default: a regtest chain of 200+ blocks starting at the regtest genesis', async () => {
    const info = await node.getBlockchainInfo();
    expect(info.chain).toBe('regtest');
    expect(info.blocks).toBeGreaterThanOrEqual(200);
    expect(info.bestblockhash).toBe(await node.getBestBlockHash());
    expect(await node.getBlockCount()).toBe(info.blocks);
    expect(await node.getBlockHash(0)).toBe('0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206');
  });

  it('behavior: blocks chain by previousblockhash, hash = SHA256d(header) within the regtest target', async () => {
    const height = await node.getBlockCount();
    const target = BigInt(`0x${'7fffff'.padEnd(64, '0')}`);
    let next: string | undefined;
    for (let h = height; h > height - 25; h--) {
      const hash = await node.getBlockHash(h);
      const header = await node.getBlockHeader(hash);
      const raw = Buffer.from((await client.command('getblockheader', hash, false)) as string, 'hex');
      expect(raw.length).toBe(80);
      expect(display(sha256d(raw))).toBe(hash);
      expect(BigInt(`0x${hash}`) <= target).toBe(true);
      expect(header.bits).toBe('207fffff');
      expect(header.height).toBe(h);
      if (next) expect((await node.getBlockHeader(next)).previousblockhash).toBe(hash);
      expect(display(raw.subarray(4, 36))).toBe(header.previousblockhash);
      next = hash;
    }
  });

  it('behavior: merkle root, BIP34 height and witness commitment of a block with transactions', async () => {
    const [hash] = await sim.control.mineBlocks(1);
    const block = await node.getBlock(hash!, 2);
    expect(block.tx.length).toBeGreaterThan(10);
    expect(merkle(block.tx.map((t) => t.txid))).toBe(block.merkleroot);
    const coinbase = block.tx[0]!;
    const scriptSig = Buffer.from(coinbase.vin[0]!.coinbase!, 'hex');
    const pushed = scriptSig.subarray(1, 1 + scriptSig[0]!);
    expect(pushed.readUIntLE(0, pushed.length)).toBe(block.height);
    const reserved = Buffer.from(coinbase.vin[0]!.txinwitness![0]!, 'hex');
    const witnessRoot = Buffer.from(merkle(['0'.repeat(64), ...block.tx.slice(1).map((t) => t.hash)]), 'hex').reverse();
    const commitment = sha256d(Buffer.concat([witnessRoot, reserved])).toString('hex');
    expect(coinbase.vout.some((o) => o.scriptPubKey.hex === `6a24aa21a9ed${commitment}`)).toBe(true);
    const subsidy = Math.floor(50e8 / 2 ** Math.floor(block.height / 150));
    const fees = block.tx.slice(1).reduce((s, t) => s + sats(t.fee!), 0);
    expect(coinbase.vout.reduce((s, o) => s + sats(o.value), 0)).toBe(subsidy + fees);
  });

  it('behavior: txid and wtxid are double SHA-256 of the serialization; decoding agrees', async () => {
    await sim.control.addTransactions(20);
    const txids = (await node.getRawMempoolTxids()).slice(0, 20);
    expect(txids.length).toBe(20);
    for (const txid of txids) {
      const hex = await node.getRawTransactionHex(txid);
      const decoded = await node.decodeRawTransaction(hex);
      expect(decoded.txid).toBe(txid);
      expect(decoded.hash).toBe(display(sha256d(Buffer.from(hex, 'hex'))));
      expect(decoded.size).toBe(hex.length / 2);
      expect(decoded.vsize).toBe(Math.ceil(decoded.weight / 4));
    }
  });

  it('behavior: fees add up (inputs − outputs = fee) for mempool and confirmed transactions', async () => {
    const [mempoolTxid] = await sim.control.addTransactions(1);
    expect(mempoolTxid).toMatch(/^[0-9a-f]{64}$/);
    const entry = await node.getMempoolEntry(mempoolTxid!);
    const tx = await node.getRawTransaction(mempoolTxid!);
    // As Core: no undo data for mempool transactions, so no fee or prevouts at verbosity 2.
    expect(tx.fee).toBeUndefined();
    expect(tx.vin.every((i) => i.prevout === undefined)).toBe(true);
    let inSat = 0;
    for (const input of tx.vin) inSat += sats((await node.getRawTransaction(input.txid!)).vout[input.vout!]!.value);
    expect(inSat - tx.vout.reduce((s, o) => s + sats(o.value), 0)).toBe(sats(entry.fees.base));
    const block = await node.getBlock(await node.getBestBlockHash(), 2);
    const confirmed = await node.getRawTransaction(block.tx[1]!.txid);
    expect(confirmed.blockhash).toBe(block.hash);
    expect(confirmed.confirmations).toBe(1);
    const cIn = confirmed.vin.reduce((s, i) => s + sats(i.prevout!.value), 0);
    expect(cIn - confirmed.vout.reduce((s, o) => s + sats(o.value), 0)).toBe(sats(confirmed.fee!));
    expect(sats(confirmed.fee!)).toBe(sats(block.tx[1]!.fee!));
  });

  it('behavior: mining removes the template’s transactions from the mempool and raises the height', async () => {
    await sim.control.addTransactions(50);
    const before = await node.getBlockCount();
    const template = await node.getBlockTemplate();
    const mempoolBefore = new Set(await node.getRawMempoolTxids());
    const [hash] = await sim.control.mineBlocks(1);
    expect(await node.getBlockCount()).toBe(before + 1);
    expect(template.height).toBe(before + 1);
    const block = await node.getBlock(hash!, 1);
    expect(block.previousblockhash).toBe(template.previousblockhash);
    expect(block.tx.slice(1)).toEqual(template.transactions.map((t) => t.txid));
    const after = new Set(await node.getRawMempoolTxids());
    for (const txid of block.tx.slice(1)) {
      expect(mempoolBefore.has(txid)).toBe(true);
      expect(after.has(txid)).toBe(false);
    }
  });

  it('error: unknown block, height out of range, unknown transaction', async () => {
    await expect(node.getBlockHash(1_000_000)).rejects.toMatchObject({ code: 'BLOCK_NOT_FOUND' });
    await expect(node.getBlockHeader('00'.repeat(32))).rejects.toMatchObject({ code: 'BLOCK_NOT_FOUND' });
    await expect(node.getRawTransaction('11'.repeat(32))).rejects.toMatchObject({ code: 'TX_NOT_FOUND' });
    await expect(client.command('getrawtransaction', '11'.repeat(32))).rejects.toMatchObject({
      code: -5,
      message: 'No such mempool or blockchain transaction. Use gettransaction for wallet transactions.',
    });
  });
});
