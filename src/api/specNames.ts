/**
 * The names the specification gives request schemas (`TxidRequest`, `JsonRpcRequest`, …), kept next
 * to the zod schema they name, so the generated OpenAPI document publishes each under that name
 * (`components.schemas`) and its operations reference it. A zod registry rather than `.meta({ id })`:
 * global ids would also reshape the inline schemas of the MCP tools and the OpenRPC document.
 */
import { z } from 'zod';

/** `extends`: the specification's schema this one widens (documents accept either). */
export type SpecName = { specName: string; extends?: string };

const specNames = z.registry<SpecName>();

/** Registers `schema` under the specification's `name`; returns the schema unchanged. */
export function specNamed<T extends z.ZodType>(schema: T, name: string, widens?: string): T {
  specNames.add(schema, { specName: name, ...(widens === undefined ? {} : { extends: widens }) });
  return schema;
}

/** The specification's name of `schema`, if it has one. */
export function specNameOf(schema: z.ZodType): SpecName | undefined {
  return specNames.get(schema);
}
