/**
 * The data directory holds signed payment authorizations and the receipt key: only the service's
 * user may list or read it. Made 0700 when created, and tightened to 0700 when it already exists
 * with a looser mode (made by hand, by a package, or by an older version that used the umask),
 * whoever made it (issue 22).
 */
import { chmodSync, mkdirSync, statSync } from 'node:fs';

/** Creates `dir` (and its parents) if needed and makes it 0700. Complexity: O(1) system calls. */
export function ensurePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  if ((statSync(dir).mode & 0o777) !== 0o700) chmodSync(dir, 0o700);
}
