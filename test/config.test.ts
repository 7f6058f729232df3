import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CONFIG_DOCS, ConfigError, loadConfig } from '../src/config.js';

describe('loadConfig', () => {
  it('default: an empty environment gives the documented defaults', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      HOST: '127.0.0.1',
      PORT: 8402,
      DATA_DIR: './data',
      OPTIMIZER_INTERVAL_SEC: 60,
      OPTIMIZER_TIMEOUT_SEC: 240,
      BASELINE_TIMEOUT_SEC: 15,
      OPTIMIZER_MAX_TX_COUNT: 4000,
    });
    expect(config.BITCOIN_RPC_URL).toBeUndefined();
  });

  it('args: TRUST_PROXY is off by default, or on, a hop count, or a list of proxy addresses', () => {
    expect(loadConfig({}).TRUST_PROXY).toBe(false);
    expect(loadConfig({ TRUST_PROXY: 'true' }).TRUST_PROXY).toBe(true);
    expect(loadConfig({ TRUST_PROXY: '127.0.0.1,10.0.0.0/8' }).TRUST_PROXY).toEqual(['127.0.0.1', '10.0.0.0/8']);
    const hops = loadConfig({ TRUST_PROXY: '2' }).TRUST_PROXY;
    expect(typeof hops === 'function' && [0, 1, 2].map((hop) => hops('10.0.0.1', hop))).toEqual([true, true, false]);
  });

  it('args: values are parsed and typed; an empty string counts as unset', () => {
    const config = loadConfig({ PORT: '9000', OPTIMIZER_ENABLED: 'false', BITCOIN_RPC_URL: 'http://u:p@127.0.0.1:18443', ESPLORA_URL: '' });
    expect(config).toMatchObject({ PORT: 9000, OPTIMIZER_ENABLED: false, BITCOIN_RPC_URL: 'http://u:p@127.0.0.1:18443' });
    expect(config.ESPLORA_URL).toBeUndefined();
  });

  it.each([
    ['PORT', 'eighty'],
    ['PORT', '70000'],
    ['BITCOIN_RPC_URL', 'ftp://node'],
    ['OPTIMIZER_ENABLED', 'maybe'],
    ['LOG_LEVEL', 'loud'],
    ['RECEIPT_SECRET_KEY', 'abc'],
    ['PAY_TO', '0x123'],
    ['TRUST_PROXY', 'everyone'],
    ['HTTP_REQUEST_TIMEOUT_MS', 'soon'],
    ['RATE_LIMIT_MAX', '-1'],
  ])('error: a bad %s names the variable and does not echo the value', (name, value) => {
    try {
      loadConfig({ [name]: value });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).variable).toBe(name);
      expect((error as Error).message).toMatch(new RegExp(`^invalid ${name}: `));
      expect((error as Error).message).not.toContain(value);
    }
  });

  it('error: the service refuses to start with exit code 2 and one line', () => {
    const run = spawnSync(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      env: { ...process.env, PORT: 'not-a-port' },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(run.status).toBe(2);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toMatch(/PORT/);
  });

  it('error: a renamed variable is refused, naming what to set instead', () => {
    expect(() => loadConfig({ X402_FACILITATOR_TIMEOUT_MS: '5000' })).toThrow(/X402_FACILITATOR_VERIFY_TIMEOUT_MS and X402_FACILITATOR_SETTLE_TIMEOUT_MS/);
  });

  it('default: the README documents every variable with its default', () => {
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
    for (const row of CONFIG_DOCS) {
      const cell = row.default === undefined ? '\\(unset\\)' : `\`${row.default.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\``;
      expect(readme, row.name).toMatch(new RegExp(`^\\| \`${row.name}\` \\| ${cell} \\|`, 'm'));
    }
  });
});

describe('start-up refusals', () => {
  it('error: a mainnet PAY_TO without a facilitator exits 2 unless allowed', () => {
    const env = { ...process.env, PAY_TO: '0x1111111111111111111111111111111111111111', PORT: '0', DATA_DIR: '/nonexistent-never-used' };
    const run = spawnSync(process.execPath, ['--import', 'tsx', 'src/main.ts'], { env, encoding: 'utf8', timeout: 60_000 });
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/X402_FACILITATOR_URL/);
  });
});
