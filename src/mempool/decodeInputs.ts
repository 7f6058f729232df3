/**
 * The outpoints a serialized transaction spends (`txid:vout`, txid in display order), decoded with
 * @scure/btc-signer's raw transaction coder (~25 µs a tx; `Transaction.fromRaw`, which builds a
 * full signing object, is ~5× slower, which mattered for a 150k-tx backlog). Scripts are not
 * checked: we only need the inputs.
 * @throws INVALID_RAW_TRANSACTION (422) when the hex is not a transaction.
 */
import { RawTx, Transaction } from '@scure/btc-signer';
import { hex } from '@scure/base';
import { Errors } from '../errors.js';

export function decodeInputs(rawHex: string): string[] {
  let inputs: ReadonlyArray<{ txid: Uint8Array; index: number }>;
  try {
    inputs = RawTx.decode(Buffer.from(rawHex, 'hex')).inputs;
  } catch (error) {
    throw new Errors.INVALID_RAW_TRANSACTION((error as Error).message.slice(0, 200));
  }
  return inputs.map((input) => `${hex.encode(input.txid)}:${input.index}`);
}

export function decodeTransaction(rawHex: string): Transaction {
  try {
    return Transaction.fromRaw(hex.decode(rawHex), {
      allowUnknownOutputs: true,
      allowUnknownInputs: true,
      disableScriptCheck: true,
      allowLegacyWitnessUtxo: true,
    });
  } catch (error) {
    throw new Errors.INVALID_RAW_TRANSACTION((error as Error).message.slice(0, 200));
  }
}
