// Generates the SDK's API types from the node's OpenAPI document (`openapi.json`, a copy of what
// a `drover dev` node serves at /api-docs/openapi.json):
//
// - src/generated/openapi.ts: the document's types (openapi-typescript), with every native or
//   token amount typed `bigint` (the client converts them when it reads a response);
// - src/generated/shapes.ts: for each schema, its amount properties and the properties that hold
//   other schemas, and for each route its success response's schema: what the client walks to
//   convert amounts at run time.
//
// An amount is a property named in AMOUNT_PROPERTIES whose type is an integer or a string that is
// not base64 (`format: byte`): the u128 fields of `crates/types/src/api` (JSON integers for
// native amounts, decimal strings for basefees and token amounts).
//
//   node scripts/openapi-types.mjs                    write both files from openapi.json
//   node scripts/openapi-types.mjs --from <node url>  first replace openapi.json by what the node
//                                                     serves (a `drover dev` node), then write both
//   node scripts/openapi-types.mjs --check            exit 1 when they differ from what is committed
//
// The unit tests check that the generated files are what this makes of openapi.json; the
// end-to-end test, that openapi.json is what a node of this repository serves.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';

const root = fileURLToPath(new URL('..', import.meta.url));

export const AMOUNT_PROPERTIES = new Set(
  (
    'allowance amount balance basefee_cell basefee_cycle callback_reserve default delegated_stake deposit deposits ' +
    'earned escrow fee fee_burned fee_tip fees_burned max max_fee_per_cell max_fee_per_cycle max_price max_supply min ' +
    'price_per_byte_block price_per_job quorum_weight relay_stake rent_paid rent_per_block rewards stake ' +
    'suggested_max_fee_per_cell suggested_max_fee_per_cycle suggested_tip_per_cell suggested_tip_per_cycle supply ' +
    'tip_per_cell tip_per_cycle total_locked value value_received votes_against votes_for weight'
  ).split(' '),
);

function types(schema) {
  return Array.isArray(schema.type) ? schema.type : [schema.type];
}

export function isAmount(name, schema) {
  if (!AMOUNT_PROPERTIES.has(name) || schema.format === 'byte') return false;
  const t = types(schema);
  return t.includes('integer') || t.includes('string');
}

/**
 * The shape a property or response refers to: a schema name, `[name]` for an array of it, or null
 * for a primitive. Inline objects with properties are registered in `shapes` under `hint`.
 */
function shapeOf(schema, hint, shapes) {
  if (!schema) return null;
  if (schema.$ref) return schema.$ref.split('/').pop();
  for (const key of ['oneOf', 'anyOf', 'allOf']) {
    for (const option of schema[key] ?? []) {
      const inner = shapeOf(option, hint, shapes);
      if (inner) return inner;
    }
  }
  if (schema.items) {
    const inner = shapeOf(schema.items, hint, shapes);
    return inner ? [inner] : null;
  }
  if (schema.properties) return describe(hint, schema, shapes) ? hint : null;
  return null;
}

/** The document's schemas by name, for the `$ref`s of `allOf` (set by {@link generate}). */
let COMPONENTS = {};

/** Registers `schema`'s amounts and nested shapes under `name`; whether there is anything to convert. */
function describe(name, schema, shapes) {
  const amounts = [];
  const nested = {};
  for (const [prop, value] of Object.entries(schema.properties ?? {})) {
    if (isAmount(prop, value)) amounts.push(prop);
    const inner = shapeOf(value, `${name}.${prop}`, shapes);
    if (inner) nested[prop] = inner;
  }
  for (const key of ['allOf', 'oneOf', 'anyOf']) {
    for (const reference of schema[key] ?? []) {
      // A flattened record (`allOf` of a `$ref` and its own properties) has the referenced
      // schema's properties too.
      const option = reference.$ref ? (COMPONENTS[reference.$ref.split('/').pop()] ?? {}) : reference;
      if (option.properties) {
        for (const [prop, value] of Object.entries(option.properties)) {
          if (isAmount(prop, value)) amounts.push(prop);
          const inner = shapeOf(value, `${name}.${prop}`, shapes);
          if (inner) nested[prop] = inner;
        }
      }
    }
  }
  if (!amounts.length && !Object.keys(nested).length) return false;
  shapes[name] = { amounts, nested };
  return true;
}

/**
 * The node's document repeats some `operationId`s (`account` for `/account/{address}` and
 * `/proof/account/{address}`, ...), which openapi-typescript refuses: each repeated id is prefixed
 * with its path's first segment (`proof_account`), a copy being changed, not the document.
 */
function uniqueOperationIds(document) {
  const copy = structuredClone(document);
  const seen = new Map();
  for (const item of Object.values(copy.paths ?? {})) {
    for (const op of [item.get, item.post]) if (op?.operationId) seen.set(op.operationId, (seen.get(op.operationId) ?? 0) + 1);
  }
  for (const [path, item] of Object.entries(copy.paths ?? {})) {
    const first = path.split('/')[1];
    for (const op of [item.get, item.post]) {
      if (op?.operationId && seen.get(op.operationId) > 1 && first !== op.operationId) op.operationId = `${first}_${op.operationId}`;
    }
  }
  return copy;
}

export async function generate(document) {
  const ast = await openapiTS(uniqueOperationIds(document), {
    transform(schema, options) {
      // Property paths are `#/components/schemas/<Schema>/<property>[/<property>...]` (array items
      // and inline objects add the names of the properties on the way).
      const parts = options.path?.split('/') ?? [];
      const name = parts.at(-1);
      if (parts.length < 5 || parts[2] !== 'schemas' || !name || !isAmount(name, schema)) return undefined;
      const bigint = ts.factory.createKeywordTypeNode(ts.SyntaxKind.BigIntKeyword);
      return types(schema).includes('null')
        ? ts.factory.createUnionTypeNode([bigint, ts.factory.createLiteralTypeNode(ts.factory.createNull())])
        : bigint;
    },
  });
  const header =
    '// Generated by scripts/openapi-types.mjs from openapi.json (the node\'s /api-docs/openapi.json): do not edit.\n' +
    '/* eslint-disable */\n';
  const typesFile = header + astToString(ast);

  const schemas = {};
  COMPONENTS = document.components?.schemas ?? {};
  for (const [name, schema] of Object.entries(COMPONENTS)) describe(name, schema, schemas);
  const responses = {};
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    for (const method of ['get', 'post']) {
      const op = item[method];
      if (!op) continue;
      const ok = op.responses?.['200']?.content?.['application/json']?.schema;
      const key = `${method.toUpperCase()} ${path}`;
      responses[key] = shapeOf(ok, key, schemas);
    }
  }
  const shapesFile =
    header +
    '/** Per schema: its amount properties (read as bigint) and the properties holding other schemas. */\n' +
    `export const SCHEMA_SHAPES: Record<string, { amounts: string[]; nested: Record<string, string | [string]> }> = ${JSON.stringify(schemas, null, 2)};\n\n` +
    '/** Per route (`METHOD path`): the schema of its JSON success response, `[Name]` for a list, null when none. */\n' +
    `export const RESPONSE_SHAPES: Record<string, string | [string] | null> = ${JSON.stringify(responses, null, 2)};\n`;
  return { typesFile, shapesFile };
}

/** The document a node serves (dev mode), written as openapi.json is kept: indented, sorted as served. */
async function fetchDocument(nodeUrl) {
  const response = await fetch(`${nodeUrl.replace(/\/+$/, '')}/api-docs/openapi.json`);
  if (!response.ok) throw new Error(`${nodeUrl} answered ${response.status} for its OpenAPI document (is it a dev-mode node?)`);
  const document = await response.json();
  writeFileSync(`${root}/openapi.json`, `${JSON.stringify(document, null, 2)}\n`);
  return document;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const from = process.argv.indexOf('--from');
  const document =
    from === -1 ? JSON.parse(readFileSync(`${root}/openapi.json`, 'utf8')) : await fetchDocument(process.argv[from + 1] ?? '');
  const { typesFile, shapesFile } = await generate(document);
  const targets = [
    [`${root}/src/generated/openapi.ts`, typesFile],
    [`${root}/src/generated/shapes.ts`, shapesFile],
  ];
  if (process.argv.includes('--check')) {
    const stale = targets.filter(([file, text]) => readFileSync(file, 'utf8') !== text).map(([file]) => file);
    if (stale.length) {
      console.error(`stale: ${stale.join(', ')}; run npm run openapi:types`);
      process.exit(1);
    }
  } else {
    for (const [file, text] of targets) writeFileSync(file, text);
  }
}
