import type { Response } from 'express';
import type { Db } from '@ferry/db';
import type { SafeHtml } from './html.js';

/**
 * A card another feature puts on a page (the local agents' Dispatch card on the Dashboard and the
 * API tokens page). It renders itself for the signed-in seat; the page only lays cards out.
 */
export type PageCard = (deps: { db: Db }, res: Response) => Promise<SafeHtml>;

export interface PageCards {
  dashboard: readonly PageCard[];
  tokens: readonly PageCard[];
}
