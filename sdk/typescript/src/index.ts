/**
 * Drover's TypeScript SDK: keys and addresses, canonical transactions and payloads, system-actor
 * calls, RAS authentication, runner flows, secret envelopes, the typed HTTP client and light-client
 * proof verification. Runs in Node.js 20+ and browsers (ES modules, no native add-ons).
 */
export * from './bytes.js';
export * from './cbor.js';
export * from './keys.js';
export * from './transaction.js';
export * from './payload.js';
export * from './calls.js';
export * from './builder.js';
export * from './ras.js';
export * from './flows.js';
export * from './secrets.js';
export * from './amount.js';
export * from './client.js';
export { parseJson } from './json.js';
export * from './verify/index.js';
export { decodeHeader, blockDigest, verifyFinalization, type BlockHeader, type Proposal } from './verify/certificate.js';
export { decodeBmtProof, verifyBmtInclusion } from './verify/bmt.js';
export { verifyStateProof, StateProofError } from './verify/qmdb.js';
export type { components, paths, operations } from './generated/openapi.js';
