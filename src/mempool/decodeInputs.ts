/**
 * The outpoints a serialized transaction spends (`txid:vout`, txid in display order), decoded with
 * @scure/btc-signer. Scripts are not checked: we only need the inputs.
 * @throws INVALID_RAW_TRANSACTION (422) when the hex is not a transaction.
 */
import { Transaction } from '@scure/btc-signer';
import { hex } from '@scure/base';
import { Errors } from '../errors.js';

export function decodeInputs(rawHex: string): string[] {
  const tx = decodeTransaction(rawHex);
  const out: string[] = [];
  for (let i = 0; i < tx.inputsLength; i++) {
    const input = tx.getInput(i);
    if (input.txid && input.index !== undefined) out.push(`${hex.encode(input.txid)}:${input.index}`);
  }
  return out;
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
