/**
 * Credentials of the getblocktemplate drop-in, as Core does it: a user and password from the
 * configuration, else a cookie file `__cookie__:<random>` written at start (mode 0600) and removed
 * at stop. The secret is never logged; the cookie's path is.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError, type Config } from '../config.js';

export const COOKIE_FILE = 'pool-rpc.cookie';
export const COOKIE_USER = '__cookie__';

export interface PoolCredentials {
  user: string;
  /** The cookie file written for them, or null with configured credentials. */
  cookiePath: string | null;
  /** Whether an `Authorization` header carries these credentials (constant time). */
  accepts(authorization: string | undefined): boolean;
  /** Removes the cookie file, if any. */
  remove(): void;
}

const digest = (s: string) => createHash('sha256').update(s).digest();

export function poolCredentials(config: Pick<Config, 'POOL_RPC_USER' | 'POOL_RPC_PASSWORD' | 'DATA_DIR'>): PoolCredentials {
  const { POOL_RPC_USER: user, POOL_RPC_PASSWORD: password } = config;
  if ((user === undefined) !== (password === undefined))
    throw new ConfigError('POOL_RPC_PASSWORD', 'set both POOL_RPC_USER and POOL_RPC_PASSWORD, or neither (a cookie file)');
  let pair: string;
  let cookiePath: string | null = null;
  if (user !== undefined && password !== undefined) pair = `${user}:${password}`;
  else {
    pair = `${COOKIE_USER}:${randomBytes(32).toString('hex')}`;
    mkdirSync(config.DATA_DIR, { recursive: true });
    cookiePath = join(config.DATA_DIR, COOKIE_FILE);
    // Replaced, never appended to: a stale cookie from a crash is overwritten.
    rmSync(cookiePath, { force: true });
    writeFileSync(cookiePath, pair, { mode: 0o600 });
  }
  const expected = digest(pair);
  return {
    user: user ?? COOKIE_USER,
    cookiePath,
    accepts(authorization) {
      const m = /^Basic ([A-Za-z0-9+/=]+)$/.exec(authorization?.trim() ?? '');
      if (!m?.[1]) return false;
      return timingSafeEqual(digest(Buffer.from(m[1], 'base64').toString('utf8')), expected);
    },
    remove() {
      if (cookiePath) rmSync(cookiePath, { force: true });
    },
  };
}
