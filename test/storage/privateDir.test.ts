/**
 * The data directory is 0700 after start, whoever made it and with whatever mode (issue 22 item 7):
 * it holds signed payment authorizations and the receipt key.
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { BitcoinNode } from '../../src/node/bitcoinNode.js';
import { ScanAddressSource } from '../../src/node/scanAddressSource.js';
import { ensurePrivateDir } from '../../src/storage/privateDir.js';
import { openSqlite } from '../../src/storage/sqlite.js';

const root = mkdtempSync(join(tmpdir(), 'private-dir-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const modeOf = (dir: string) => statSync(dir).mode & 0o777;

/** A directory someone else made, world-readable. */
function preExisting(name: string, mode: number): string {
  const dir = join(root, name);
  mkdirSync(dir, { mode });
  chmodSync(dir, mode);
  expect(modeOf(dir)).toBe(mode);
  return dir;
}

describe('the data directory', () => {
  it('error: a pre-existing DATA_DIR with 0755 is 0700 once the service has started', async () => {
    const dataDir = preExisting('service', 0o755);
    const node = new BitcoinNode({ url: 'http://u:p@127.0.0.1:1', timeoutMs: 500, scanTimeoutMs: 500 });
    const config = loadConfig({ DATA_DIR: dataDir, PAYMENTS_ENABLED: 'false', OPTIMIZER_ENABLED: 'false' });
    const app = await buildApp({ config, node, addressSource: new ScanAddressSource(node), nodeKind: 'real', autoStart: false });
    try {
      await app.ready();
      expect(modeOf(dataDir)).toBe(0o700);
    } finally {
      await app.close();
    }
  });

  it('error: opening a database tightens a 0777 directory to 0700', () => {
    const dataDir = preExisting('sqlite', 0o777);
    openSqlite({ dataDir, file: 'x.sqlite', migrations: [] }).close();
    expect(modeOf(dataDir)).toBe(0o700);
    expect(statSync(join(dataDir, 'x.sqlite')).mode & 0o777).toBe(0o600);
  });

  it('default: a missing directory is created 0700, parents included', () => {
    const dir = join(root, 'a', 'b');
    ensurePrivateDir(dir);
    expect(modeOf(dir)).toBe(0o700);
  });
});
