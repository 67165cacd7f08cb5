import { useMutation, useQueryClient } from '@tanstack/react-query';
import { productTypeName } from '../../app/kind-names.ts';
import { useState } from 'react';
import { whenOrNever } from '../../app/datetime.ts';
import { Pager } from '../../admin/Pager.tsx';
import { ConfirmDialog } from '../../app/ModalDialog.tsx';
import { Link } from '../../app/router.tsx';
import { useScreen } from '../../app/useTitle.ts';
import { WideTable } from '../../app/WideTable.tsx';
import { messageOf } from '../../data/errors.ts';
import { keys } from '../../data/keys.ts';
import { useCursorPages } from '../../data/paging.ts';
import { identityApi } from '../api.ts';
import {
  LICENSE_TYPES,
  LISTING_STATUSES,
  PRICING,
  priceOf,
  type ApiLicense,
  type ApiListing,
  type ListingStatus,
} from './api.ts';
import { useNames } from './names.ts';

type Move = 'publish' | 'withdraw' | 'archive';
const MOVES: Record<Move, { button: string; title: (l: ApiListing) => string; says: string; done: string }> = {
  publish: {
    button: 'Publish',
    title: (l) => `Publish “${l.title}”?`,
    says: 'Everyone signed in sees it, and organizations can license it. A published listing is never unpublished: it can only be archived.',
    done: 'is published',
  },
  withdraw: {
    button: 'Send back',
    title: (l) => `Send “${l.title}” back to its seller?`,
    says: 'It becomes a draft again: its organization can change it and submit it anew.',
    done: 'is sent back to its seller as a draft',
  },
  archive: {
    button: 'Archive',
    title: (l) => `Archive “${l.title}”?`,
    says: 'No new licenses can be bought; the licenses already sold stay valid.',
    done: 'is archived',
  },
};
const PHRASES: Record<ListingStatus, string> = {
  draft: 'in draft',
  pending_review: 'waiting for review',
  published: 'published',
  archived: 'archived',
};
const MOVES_FROM: Partial<Record<ListingStatus, Move[]>> = {
  pending_review: ['publish', 'withdraw'],
  published: ['archive'],
};

/**
 * identity's marketplace: the listings (the review queue first: publish or send back; archive a published one) and the
 * licenses organizations bought, each opening its seats.
 */
export default function MarketplaceScreen() {
  useScreen('Marketplace');
  return (
    <>
      <h1>Marketplace</h1>
      <p className="description">
        Listings organizations sell, the licenses others bought and their seats. Subscriptions are on each
        organization's page.
      </p>
      <Listings />
      <Licenses />
    </>
  );
}

function Listings() {
  const client = useQueryClient();
  const [status, setStatus] = useState<ListingStatus | ''>('pending_review');
  const pages = useCursorPages<ApiListing>(
    keys.market.listings,
    '/listings',
    { status: status || undefined },
    25,
    identityApi.get,
  );
  const names = useNames({ organizations: (pages.items ?? []).map((l) => l.creator_org_id), listings: [] });
  const [moving, setMoving] = useState<{ move: Move; listing: ApiListing }>();
  const [said, setSaid] = useState('');
  const move = useMutation({
    mutationFn: ({ move, listing }: { move: Move; listing: ApiListing }) =>
      identityApi.call<ApiListing>('POST', `/listings/${encodeURIComponent(listing.id)}/${move}`),
    onSuccess: async (l, { move }) => {
      client.setQueryData(keys.market.listing(l.id), l);
      await client.invalidateQueries({ queryKey: keys.market.listings });
      setMoving(undefined);
      setSaid(`“${l.title}” ${MOVES[move].done}.`);
    },
  });
  const count = pages.items?.length;
  const which = status ? ` ${PHRASES[status]}` : '';
  return (
    <section aria-labelledby="listings-title">
      <h2 id="listings-title">Listings</h2>
      <div className="toolbar">
        <div className="field">
          <label htmlFor="listings-status">Show</label>
          <select
            id="listings-status"
            value={status}
            onChange={(e) => {
              setSaid('');
              setStatus(e.target.value as ListingStatus | '');
            }}
          >
            <option value="">Every listing</option>
            {(Object.keys(LISTING_STATUSES) as ListingStatus[]).map((s) => (
              <option key={s} value={s}>
                {LISTING_STATUSES[s]}
              </option>
            ))}
          </select>
        </div>
      </div>
      <p role="status" className="status">
        {said ||
          (count === undefined
            ? ''
            : count === 0
              ? `No listing${which}.`
              : `${count} listing${count === 1 ? '' : 's'}${which}${pages.hasNext || pages.page > 1 ? ` on page ${pages.page}` : ''}.`)}
      </p>
      {pages.error !== null && pages.error !== undefined && (
        <p role="alert" className="error">
          {messageOf(pages.error, 'the listings could not be loaded')}
        </p>
      )}
      {pages.items && pages.items.length > 0 && (
        <WideTable label="Listings">
          <table>
            <caption>Listings{status ? `: ${LISTING_STATUSES[status].toLowerCase()}` : ''}</caption>
            <thead>
              <tr>
                <th scope="col">Title</th>
                <th scope="col">Seller</th>
                <th scope="col">Product</th>
                <th scope="col">Price</th>
                <th scope="col">Status</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {pages.items.map((l) => (
                <tr key={l.id}>
                  <th scope="row">
                    {l.title}
                    {l.description && <span className="hint block">{l.description}</span>}
                  </th>
                  <td>
                    <Link to="organization" params={{ id: l.creator_org_id }}>
                      {names.organization(l.creator_org_id)}
                    </Link>
                  </td>
                  <td>{productTypeName(l.product_type)}</td>
                  <td>
                    {priceOf(l)}
                    {l.pricing_model !== 'free' && <span className="hint block">{PRICING[l.pricing_model]}</span>}
                  </td>
                  <td>
                    {LISTING_STATUSES[l.status] ?? l.status}
                    {l.published_at && <span className="hint block">since {whenOrNever(l.published_at)}</span>}
                  </td>
                  <td className="actions">
                    {(MOVES_FROM[l.status] ?? []).map((m) => (
                      <button
                        key={m}
                        type="button"
                        className={m === 'publish' ? 'secondary' : 'danger'}
                        aria-label={`${MOVES[m].button}: ${l.title}`}
                        onClick={() => setMoving({ move: m, listing: l })}
                      >
                        {MOVES[m].button}
                      </button>
                    ))}
                    {!MOVES_FROM[l.status] && 'none'}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </WideTable>
      )}
      <Pager pages={pages} label="Listings" />
      {moving && (
        <ConfirmDialog
          title={MOVES[moving.move].title(moving.listing)}
          confirm={MOVES[moving.move].button}
          busy={move.isPending}
          error={move.error ? messageOf(move.error) : undefined}
          onConfirm={() => move.mutate(moving)}
          onClose={() => {
            setMoving(undefined);
            move.reset();
          }}
        >
          <p>{MOVES[moving.move].says}</p>
        </ConfirmDialog>
      )}
    </section>
  );
}

const NO_FILTERS = {};

function Licenses() {
  const pages = useCursorPages<ApiLicense>(keys.market.licenses, '/licenses', NO_FILTERS, 25, identityApi.get);
  const names = useNames({
    organizations: (pages.items ?? []).map((x) => x.organization_id),
    listings: (pages.items ?? []).map((x) => x.listing_id),
  });
  const count = pages.items?.length;
  return (
    <section aria-labelledby="licenses-title">
      <h2 id="licenses-title">Licenses</h2>
      <p role="status" className="status">
        {count === undefined
          ? ''
          : count === 0
            ? 'No license is sold yet.'
            : `${count} license${count === 1 ? '' : 's'}${pages.hasNext || pages.page > 1 ? ` on page ${pages.page}` : ''}.`}
      </p>
      {pages.error !== null && pages.error !== undefined && (
        <p role="alert" className="error">
          {messageOf(pages.error, 'the licenses could not be loaded')}
        </p>
      )}
      {pages.items && pages.items.length > 0 && (
        <WideTable label="Licenses">
          <table>
            <caption>Licenses bought</caption>
            <thead>
              <tr>
                <th scope="col">Listing</th>
                <th scope="col">Organization</th>
                <th scope="col">Type</th>
                <th scope="col">Seats used</th>
                <th scope="col">Valid</th>
              </tr>
            </thead>
            <tbody>
              {pages.items.map((x) => (
                <tr key={x.id}>
                  <th scope="row">
                    <Link to="license" params={{ id: x.id }}>
                      {names.listing(x.listing_id)}
                    </Link>
                  </th>
                  <td>{names.organization(x.organization_id)}</td>
                  <td>{LICENSE_TYPES[x.license_type] ?? x.license_type}</td>
                  <td>{x.seats === null ? `${x.used_seats} (no limit)` : `${x.used_seats} of ${x.seats}`}</td>
                  <td>
                    from {whenOrNever(x.valid_from)}
                    {x.valid_until ? ` until ${whenOrNever(x.valid_until)}` : ', no end'}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </WideTable>
      )}
      <Pager pages={pages} label="Licenses" />
    </section>
  );
}
