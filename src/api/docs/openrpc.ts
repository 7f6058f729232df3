/**
 * The OpenRPC 1.2.6 document of the JSON-RPC surface (`POST /v1/rpc`), generated from the registry:
 * every method with its positional params and result (zod → JSON Schema), its price
 * (`x-price-usd`), the JSON-RPC errors it may answer with (codes of `shared/rpcErrors.ts`) and its
 * registry example as an example pairing. Served at `GET /openrpc.json` and by the free method
 * `rpc.discover` (EIP-1901), so JSON-RPC tooling discovers the methods as it does an Ethereum node's.
 */
import { Errors, type ErrorCode } from '../../errors.js';
import { priceUsd, type Registry, type RpcMethod } from '../define.js';
import { InvalidParamsRpcError, toJsonRpcError } from '../shared/rpcErrors.js';
import { jsonSchema, type Components } from '../shared/jsonSchema.js';
import { methodParams, type ContentDescriptor } from '../shared/methodParams.js';
import { API_VERSION, SERVICE_SUMMARY, SERVICE_TITLE } from '../shared/serviceFacts.js';

export const OPENRPC_VERSION = '1.2.6' as const;

export type OpenRpcError = {
  code: number;
  message: string;
  data?: unknown;
};

export type OpenRpcMethod = {
  name: string;
  summary: string;
  description?: string;
  tags: Array<{ name: string }>;
  paramStructure: 'by-position';
  params: ContentDescriptor[];
  result: ContentDescriptor;
  errors: OpenRpcError[];
  examples: Array<{ name: string; params: Array<{ name: string; value: unknown }>; result: { name: string; value: unknown } }>;
  'x-price-usd': number;
};

export type OpenRpcDocument = {
  openrpc: typeof OPENRPC_VERSION;
  info: { title: string; version: string; description: string };
  servers: Array<{ name: string; url: string }>;
  methods: OpenRpcMethod[];
  components: { schemas: Components };
};

/** The JSON-RPC errors a method may answer with: invalid params (any method) and its catalogue errors mapped as the dispatcher maps them. */
export function methodErrors(method: RpcMethod): OpenRpcError[] {
  const out: OpenRpcError[] = [{ code: InvalidParamsRpcError.code, message: 'Invalid params' }];
  const codes: ErrorCode[] = [...method.errors, ...(method.snapshot ? (['NODE_UNAVAILABLE'] as const) : [])];
  for (const code of new Set(codes)) {
    const mapped = toJsonRpcError(new Errors[code]());
    if (mapped.code === InvalidParamsRpcError.code) continue; // already listed: its data names the catalogue code
    out.push({ code: mapped.code, message: code, data: { code } });
  }
  return out;
}

function openRpcMethod(method: RpcMethod, components: Components): OpenRpcMethod {
  const params = methodParams(method, components);
  const example = Array.isArray(method.example.params) ? (method.example.params as unknown[]) : [];
  return {
    name: method.name,
    summary: method.summary,
    ...(method.description ? { description: method.description } : {}),
    tags: [{ name: method.family }],
    paramStructure: 'by-position',
    params,
    result: { name: 'result', schema: jsonSchema(method.result, 'output', components, 'draft-7') },
    errors: methodErrors(method),
    examples: [
      {
        name: `${method.name} example`,
        params: example.map((value, i) => ({ name: params[i]?.name ?? `param${i + 1}`, value })),
        result: { name: 'result', value: method.example.result },
      },
    ],
    'x-price-usd': priceUsd(method.price),
  };
}

/** The OpenRPC document for `registry`, its server at `baseUrl`. */
export function buildOpenRpc(registry: Registry, baseUrl: string): OpenRpcDocument {
  const components: Components = {};
  const methods = [...registry.methods.values()].map((m) => openRpcMethod(m, components));
  return {
    openrpc: OPENRPC_VERSION,
    info: {
      title: `${SERVICE_TITLE}: JSON-RPC`,
      version: API_VERSION,
      description: `${SERVICE_SUMMARY} Every method's price in USD is its \`x-price-usd\`; a batch costs the sum of its calls (x402 v2, see /llms-full.txt).`,
    },
    servers: [{ name: 'JSON-RPC 2.0 over HTTP POST', url: `${baseUrl}/v1/rpc` }],
    methods,
    components: { schemas: components },
  };
}
