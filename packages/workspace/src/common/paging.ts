/**
 * One way to page a list (rooms, members, invites, tokens, webhook keys and hooks, workspaces):
 * 50 rows a page, numbered from 1, with the total so the page can say "Showing 1–50 of 1,234".
 * A page past the end is empty (its total still says how many there are), never an error.
 */
export const LIST_PAGE_SIZE = 50;

export interface PageRequest {
  /** 1-based; anything below 1 reads as 1. */
  page?: number | undefined;
}

export interface ListPage<T> {
  items: T[];
  /** Rows in the whole list. */
  total: number;
  page: number;
  /** At least 1, so "Page 1 of 1" holds for an empty list. */
  pages: number;
  /** 1-based position of the first row shown (0 when none is). */
  first: number;
}

/** The rows a page covers, for a query's limit and offset. */
export function pageWindow(request: PageRequest = {}): {
  page: number;
  limit: number;
  offset: number;
} {
  const page = Math.max(1, Math.floor(request.page ?? 1) || 1);
  return { page, limit: LIST_PAGE_SIZE, offset: (page - 1) * LIST_PAGE_SIZE };
}

/** A page's rows with the list's total. */
export function listPage<T>(items: T[], total: number, request: PageRequest = {}): ListPage<T> {
  const { page, offset } = pageWindow(request);
  return {
    items,
    total,
    page,
    pages: Math.max(1, Math.ceil(total / LIST_PAGE_SIZE)),
    first: items.length ? offset + 1 : 0,
  };
}
