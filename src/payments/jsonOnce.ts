/**
 * One JSON encoding per object: a paid request's payment payload and matched requirements are sent
 * to the facilitator twice (`/verify`, `/settle`) and written to the ledger row, the same text each
 * time. Only for objects never mutated once built (parsed payloads, the requirements offered).
 */
const encoded = new WeakMap<object, string>();

export function jsonOnce(value: object): string {
  let text = encoded.get(value);
  if (text === undefined) {
    text = JSON.stringify(value);
    encoded.set(value, text);
  }
  return text;
}
