import { z } from 'zod';

/**
 * Payloads from other vendors are read leniently: a field of the wrong type is dropped, not a 422,
 * because the vendor would have shown what it could. Only what renders to nothing is refused.
 */

export const text = z.string().optional().catch(undefined);
export const num = z.number().optional().catch(undefined);
export const bool = z.boolean().optional().catch(undefined);
export const textOrNumber = z.union([z.string(), z.number()]).optional().catch(undefined);

/** The items of an array that parse as `item`; anything else is skipped. */
export function listOf<T>(item: z.ZodType<T>) {
  return z
    .array(z.unknown())
    .optional()
    .catch(undefined)
    .transform((values): T[] =>
      (values ?? []).flatMap((value) => {
        const parsed = item.safeParse(value);
        return parsed.success ? [parsed.data] : [];
      }),
    );
}

/** A plain JSON object (not an array, not null). */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Markdown's special characters in text the vendor meant as plain, so `*` stays a star. */
export function escapeMarkdown(value: string): string {
  return value
    .replace(/[\\`*_~[\]|<>]/g, (c) => `\\${c}`)
    .replace(
      /^(\s*)([#+-]|\d+\.)(?=\s)/gm,
      (_m, space: string, mark: string) => `${space}\\${mark}`,
    );
}
