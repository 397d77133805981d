/**
 * JSON as the node writes it, read without losing precision: `JSON.parse` turns an integer above
 * 2^53 into a rounded float, so integer literals outside the safe range are read as `bigint`
 * (`lossless-json` parses, with our number rule; it also writes `bigint`s as JSON integers).
 * Then {@link withAmounts} turns every amount of a response (a native amount's JSON integer, a
 * basefee's or token amount's decimal string) into `bigint`, following the shapes generated from
 * the OpenAPI document (`src/generated/shapes.ts`).
 */
import { parse, stringify } from 'lossless-json';
import { RESPONSE_SHAPES, SCHEMA_SHAPES } from './generated/shapes.js';

/** A JSON number: an integer outside the safe range as `bigint`, any other as a `number`. */
function parseNumber(text: string): number | bigint {
  const value = Number(text);
  return /^-?\d+$/.test(text) && !Number.isSafeInteger(value) ? BigInt(text) : value;
}

/** Parses JSON text; integers that are not safe JavaScript integers come back as `bigint`. */
export function parseJson(text: string): unknown {
  return parse(text, null, parseNumber);
}

function toAmount(value: unknown): unknown {
  if (typeof value === 'number' && Number.isInteger(value)) return BigInt(value);
  if (typeof value === 'string' && /^\d+$/.test(value)) return BigInt(value);
  return value;
}

function convert(value: unknown, shape: string | [string] | null | undefined): unknown {
  if (shape === null || shape === undefined || value === null || typeof value !== 'object') return value;
  if (Array.isArray(shape)) return Array.isArray(value) ? value.map((item) => convert(item, shape[0])) : value;
  const spec = SCHEMA_SHAPES[shape];
  if (!spec || Array.isArray(value)) return value;
  const record = value as Record<string, unknown>;
  for (const key of spec.amounts) if (key in record) record[key] = toAmount(record[key]);
  for (const [key, inner] of Object.entries(spec.nested)) if (key in record) record[key] = convert(record[key], inner);
  return record;
}

/** A value of the OpenAPI schema `schema` with its amounts as `bigint` (a stream's messages). */
export function schemaWithAmounts(schema: string, value: unknown): unknown {
  return convert(value, schema);
}

/** The JSON response of route `METHOD path` with its amounts as `bigint`. */
export function withAmounts(route: string, value: unknown): unknown {
  return convert(value, RESPONSE_SHAPES[route]);
}

/** JSON text of a request body; `bigint`s are written as JSON integers. */
export function stringifyJson(value: unknown): string {
  return stringify(value) ?? 'null';
}
