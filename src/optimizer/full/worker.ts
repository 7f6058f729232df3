/**
 * The optimizer's piscina worker: one synchronous native call per task, off the event loop. The
 * input's buffers arrive transferred (the caller's copies are detached); the result's typed arrays
 * go back transferred through `Piscina.move`.
 */
import { move, transferableSymbol, valueSymbol } from 'piscina';
import { buildTemplates, type OptimizerInput, type OptimizerOptions, type OptimizerResult } from '../binding/native.js';

export interface CycleTask {
  input: OptimizerInput;
  options: OptimizerOptions;
}

/** Every ArrayBuffer a value holds, at any depth (typed arrays in objects and arrays). */
export function buffersOf(value: unknown, out: ArrayBuffer[] = [], seen = new Set<ArrayBuffer>()): ArrayBuffer[] {
  if (ArrayBuffer.isView(value)) {
    const buffer = value.buffer as ArrayBuffer;
    if (!seen.has(buffer) && buffer.byteLength > 0) {
      seen.add(buffer);
      out.push(buffer);
    }
  } else if (Array.isArray(value)) for (const v of value) buffersOf(v, out, seen);
  else if (value !== null && typeof value === 'object') for (const v of Object.values(value)) buffersOf(v, out, seen);
  return out;
}

export function runCycle(task: CycleTask): OptimizerResult {
  const result = buildTemplates(task.input, task.options);
  const transferable = {
    get [transferableSymbol]() {
      return buffersOf(result);
    },
    get [valueSymbol]() {
      return result;
    },
  };
  return move(transferable) as unknown as OptimizerResult;
}

export default runCycle;
