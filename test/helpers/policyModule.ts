/**
 * The simulated node's mining policy in tests, as `src/main.ts` hands it in: Core v31's algorithm
 * through the native optimizer (`src/optimizer/binding/coreV31Policy.ts`), by module URL for the worker.
 */
import { moduleUrl } from '../../src/util/workerFile.js';

export const CORE_V31_POLICY_MODULE = moduleUrl(import.meta.url, '../../src/optimizer/binding/coreV31Policy');
