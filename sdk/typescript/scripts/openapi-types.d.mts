// Types of scripts/openapi-types.mjs for the tests that import it.
export const AMOUNT_PROPERTIES: Set<string>;
export function isAmount(name: string, schema: Record<string, unknown>): boolean;
export function generate(document: unknown): Promise<{ typesFile: string; shapesFile: string }>;
