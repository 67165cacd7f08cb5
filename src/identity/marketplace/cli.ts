import type { Database } from '../../kit/db.ts';
import { CommandFailure, UsageError, str, type Command } from '../../kit/cli-runner.ts';
import { HttpError } from '../../kit/errors.ts';
import type { MarketCaller } from '../access/market.ts';
import { recordAsRequest } from '../admin-log/command-record.ts';
import { LISTING_STATUSES, type ListingAction, type ListingStatus } from './listing-transitions.ts';
import { listListings } from './listing-store.ts';
import { moveListingBy } from './records.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function listingId(value: string | undefined): string {
  if (!value || !UUID.test(value)) throw new UsageError('LISTING_ID must be a listing id (a UUID)');
  return value;
}

/** The operator at the shell: the marketplace's reviewer, speaking for nobody, as IDENTITY_ADMIN_TOKEN does in the API. */
const OPERATOR: MarketCaller = { principalId: undefined, platformAdmin: true };

/**
 * `platform identity listings …`: the marketplace reviewer's work from a shell, straight against the database. A move
 * goes through the API's own (`moveListingBy`), recorded in its transaction as the API's route records it
 * (`listing.publish`, …) with the actor `command`.
 */
export function marketplaceCommands(withDatabase: <T>(fn: (db: Database) => Promise<T>) => Promise<T>): Command[] {
  const move = (action: ListingAction, summary: string): Command => ({
    path: ['listings', action],
    synopsis: 'LISTING_ID',
    summary,
    details: ['recorded in the change log (GET /api/v1/admin-log) with the actor "command"'],
    positionals: { min: 1, max: 1 },
    run: ({ positionals, result }) => {
      const id = listingId(positionals[0]);
      return withDatabase(async (db) => {
        // No such listing, or a move its status does not allow: the command ran and failed (exit 1), no usage mistake.
        const l = await db
          .transaction(async (tx) => {
            const moved = await moveListingBy(tx, OPERATOR, id, action);
            await recordAsRequest(tx, { method: 'POST', route: `/listings/:id/${action}`, params: { id } });
            return moved;
          })
          .catch((err: unknown) => {
            throw err instanceof HttpError ? new CommandFailure(err.message) : err;
          });
        result(l, [
          `listing ${l.id} "${l.title}" is now ${l.status}${l.published_at ? ` (published ${l.published_at})` : ''}`,
        ]);
      });
    },
  });
  return [
    {
      path: ['listings', 'list'],
      synopsis: '[--status draft|pending_review|published|archived]',
      summary: 'marketplace listings, by id (with --status pending_review: what awaits review)',
      options: { status: { type: 'string' } },
      run: ({ values, result }) => {
        const status = str(values, 'status');
        if (status && !(LISTING_STATUSES as readonly string[]).includes(status))
          throw new UsageError(`--status must be one of ${LISTING_STATUSES.join(', ')}`);
        return withDatabase(async (db) => {
          const rows = await listListings(db, { status: status as ListingStatus | undefined, limit: 1000 });
          result(
            rows,
            rows.length
              ? rows.map((l) => `${l.id}  ${l.status.padEnd(14)}  ${l.title}  (organization ${l.creator_org_id})`)
              : ['no listings'],
          );
        });
      },
    },
    move('publish', 'publish a listing in review (pending_review → published)'),
    move('withdraw', 'send a listing in review back to its owners (pending_review → draft)'),
    move('archive', 'take a published listing off the market (published → archived)'),
  ];
}
