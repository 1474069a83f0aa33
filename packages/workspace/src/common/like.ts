/**
 * Search boxes match with LIKE/ILIKE: `%`, `_` and the escape character itself typed into one match
 * literally after this (Postgres' default escape is `\`).
 */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}
