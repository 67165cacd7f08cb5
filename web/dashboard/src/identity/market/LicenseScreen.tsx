import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useRef, useState, type FormEvent } from 'react';
import { whenOrNever } from '../../app/datetime.ts';
import { ConfirmDialog, DialogEnd, ModalDialog } from '../../app/ModalDialog.tsx';
import { Link } from '../../app/router.tsx';
import { useScreen } from '../../app/useTitle.ts';
import { WideTable } from '../../app/WideTable.tsx';
import { messageOf } from '../../data/errors.ts';
import { keys } from '../../data/keys.ts';
import { MAX_PAGE, pagePath } from '../../data/paging.ts';
import type { ApiPage } from '../../api/types.ts';
import { identityApi } from '../api.ts';
import type { ApiMember } from '../orgs/api.ts';
import { LICENSE_TYPES, type ApiLicense, type ApiSeat } from './api.ts';
import { useNames } from './names.ts';

/** Every item of one of identity's lists, page after page (a license's seats, an organization's members). */
async function everyPage<T>(path: string, filters: Record<string, string>, signal: AbortSignal): Promise<T[]> {
  const all: T[] = [];
  let cursor: string | undefined;
  do {
    const page = await identityApi.get<ApiPage<T>>(pagePath(path, MAX_PAGE, cursor, filters), signal);
    all.push(...page.items);
    cursor = page.next ?? undefined;
  } while (cursor);
  return all;
}

/** `datetime-local` text for an ISO time, in the person's own zone. */
const local = (iso: string | null) => {
  if (!iso) return '';
  const d = new Date(iso);
  return new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
};

const memberName = (m: ApiMember | undefined, id: string) =>
  m ? m.principal.display_name || m.principal.email || m.principal.identifier : id;

/** One license: what it is and how long it runs, its seats (who holds one), giving and taking seats, changing it. */
export default function LicenseScreen({ id }: { id: string }) {
  const client = useQueryClient();
  const license = useQuery({
    queryKey: keys.market.license(id),
    queryFn: ({ signal }) => identityApi.get<ApiLicense>(`/licenses/${encodeURIComponent(id)}`, signal),
  });
  const x = license.data;
  const names = useNames({ organizations: x ? [x.organization_id] : [], listings: x ? [x.listing_id] : [] });
  useScreen(x ? `License: ${names.listing(x.listing_id)}` : 'License');
  const seats = useQuery({
    queryKey: keys.market.seats(id),
    queryFn: ({ signal }) => everyPage<ApiSeat>(`/licenses/${encodeURIComponent(id)}/seats`, {}, signal),
  });
  const members = useQuery({
    queryKey: [...keys.organizations.members(x?.organization_id ?? ''), 'every'],
    enabled: Boolean(x),
    queryFn: ({ signal }) =>
      everyPage<ApiMember>(
        `/organizations/${encodeURIComponent(x!.organization_id)}/people`,
        { active: 'true' },
        signal,
      ),
  });
  const [said, setSaid] = useState('');
  const [changing, setChanging] = useState(false);
  const [taking, setTaking] = useState<ApiSeat>();
  const [chosen, setChosen] = useState('');
  const heading = useRef<HTMLHeadingElement>(null);
  const byId = new Map((members.data ?? []).map((m) => [m.principal_id, m]));
  const holders = new Set((seats.data ?? []).map((s) => s.principal_id));
  const free = (members.data ?? []).filter((m) => !holders.has(m.principal_id));
  const changed = async () => {
    await Promise.all([
      client.invalidateQueries({ queryKey: keys.market.seats(id) }),
      client.invalidateQueries({ queryKey: keys.market.license(id) }),
      client.invalidateQueries({ queryKey: keys.market.licenses }),
    ]);
  };
  const give = useMutation({
    mutationFn: (principalId: string) =>
      identityApi.call<{ seat: ApiSeat; license: ApiLicense }>('POST', `/licenses/${encodeURIComponent(id)}/seats`, {
        body: { principal_id: principalId },
      }),
    onMutate: () => setSaid(''),
    onSuccess: async (r) => {
      await changed();
      setChosen('');
      setSaid(`${memberName(byId.get(r.seat.principal_id), r.seat.principal_id)} has a seat.`);
    },
  });
  const take = useMutation({
    mutationFn: (s: ApiSeat) =>
      identityApi.call('DELETE', `/licenses/${encodeURIComponent(id)}/seats/${encodeURIComponent(s.principal_id)}`),
    onSuccess: async (_, s) => {
      await changed();
      setTaking(undefined);
      setSaid(`${memberName(byId.get(s.principal_id), s.principal_id)}'s seat is taken back.`);
    },
  });

  if (license.error)
    return (
      <>
        <p className="crumbs">
          <Link to="marketplace">Marketplace</Link>
        </p>
        <h1>License</h1>
        <p role="alert" className="error">
          {messageOf(license.error, 'the identity service could not be reached')}
        </p>
      </>
    );
  if (!x)
    return (
      <p role="status" className="status">
        Loading the license…
      </p>
    );
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (chosen) give.mutate(chosen);
  };
  return (
    <>
      <p className="crumbs">
        <Link to="marketplace">Marketplace</Link>
      </p>
      <h1>License: {names.listing(x.listing_id)}</h1>
      <dl className="facts">
        <dt>Organization</dt>
        <dd>
          <Link to="organization" params={{ id: x.organization_id }}>
            {names.organization(x.organization_id)}
          </Link>
        </dd>
        <dt>Type</dt>
        <dd>{LICENSE_TYPES[x.license_type] ?? x.license_type}</dd>
        <dt>Seats</dt>
        <dd>{x.seats === null ? `${x.used_seats} given, no limit` : `${x.used_seats} of ${x.seats} given`}</dd>
        <dt>Valid</dt>
        <dd>
          from {whenOrNever(x.valid_from)}
          {x.valid_until ? ` until ${whenOrNever(x.valid_until)}` : ', no end'}
        </dd>
        {x.payment_subscription_id && (
          <>
            <dt>Payment subscription</dt>
            <dd>
              <code>{x.payment_subscription_id}</code>
            </dd>
          </>
        )}
        <dt>Bought</dt>
        <dd>{whenOrNever(x.created_at)}</dd>
      </dl>
      <div className="actions">
        <button type="button" className="secondary" onClick={() => setChanging(true)}>
          Change seats or validity
        </button>
      </div>
      <section aria-labelledby="seats-title">
        <h2 id="seats-title" ref={heading} tabIndex={-1}>
          Seats
        </h2>
        <form className="form inline-form" onSubmit={submit} aria-label="Give a seat">
          <label htmlFor="seat-member">Member of {names.organization(x.organization_id)}</label>
          <select id="seat-member" value={chosen} required onChange={(e) => setChosen(e.target.value)}>
            <option value="">{free.length ? 'Choose a member' : 'Every member has a seat'}</option>
            {free.map((m) => (
              <option key={m.principal_id} value={m.principal_id}>
                {memberName(m, m.principal_id)}
                {m.principal.email ? ` (${m.principal.email})` : ''}
              </option>
            ))}
          </select>
          <button type="submit" disabled={give.isPending || !chosen}>
            Give a seat
          </button>
        </form>
        <p role="status" className="status">
          {said}
        </p>
        {(give.error || seats.error || members.error) && (
          <p role="alert" className="error">
            {messageOf(give.error ?? seats.error ?? members.error, 'the seats could not be loaded')}
          </p>
        )}
        {seats.data && seats.data.length === 0 && <p>Nobody holds a seat yet.</p>}
        {seats.data && seats.data.length > 0 && (
          <WideTable label="Seats">
            <table>
              <caption>Who holds a seat</caption>
              <thead>
                <tr>
                  <th scope="col">Member</th>
                  <th scope="col">Email or identifier</th>
                  <th scope="col">Since</th>
                  <th scope="col">Actions</th>
                </tr>
              </thead>
              <tbody>
                {seats.data.map((s) => {
                  const m = byId.get(s.principal_id);
                  return (
                    <tr key={s.principal_id}>
                      <th scope="row">
                        {memberName(m, s.principal_id)}
                        {!m && <span className="hint block">no longer a member</span>}
                      </th>
                      <td>{m ? (m.principal.email ?? m.principal.identifier) : '—'}</td>
                      <td>{whenOrNever(s.assigned_at)}</td>
                      <td className="actions">
                        <button
                          type="button"
                          className="danger"
                          aria-label={`Take back the seat of ${memberName(m, s.principal_id)}`}
                          onClick={() => setTaking(s)}
                        >
                          Take back
                        </button>
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </WideTable>
        )}
      </section>
      {changing && (
        <ChangeLicense
          license={x}
          onClose={() => setChanging(false)}
          onSaved={async () => {
            await changed();
            setChanging(false);
            setSaid('The license is changed.');
          }}
        />
      )}
      {taking && (
        <ConfirmDialog
          title={`Take back the seat of ${memberName(byId.get(taking.principal_id), taking.principal_id)}?`}
          confirm="Take back"
          busy={take.isPending}
          error={take.error ? messageOf(take.error) : undefined}
          onConfirm={() => take.mutate(taking)}
          onClose={() => {
            setTaking(undefined);
            take.reset();
          }}
          fallback={() => heading.current}
        >
          <p>The seat is free for another member at once.</p>
        </ConfirmDialog>
      )}
    </>
  );
}

function ChangeLicense({
  license,
  onClose,
  onSaved,
}: {
  license: ApiLicense;
  onClose: () => void;
  onSaved: () => Promise<void>;
}) {
  const [seats, setSeats] = useState(license.seats === null ? '' : String(license.seats));
  const [until, setUntil] = useState(local(license.valid_until));
  const save = useMutation({
    mutationFn: () =>
      identityApi.call<ApiLicense>('PATCH', `/licenses/${encodeURIComponent(license.id)}`, {
        body: {
          ...(license.seats !== null ? { seats: Number(seats) } : {}),
          valid_until: until ? new Date(until).toISOString() : null,
        },
      }),
    onSuccess: onSaved,
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate();
  };
  return (
    <ModalDialog title="Change the license" onClose={onClose}>
      <form className="form" onSubmit={submit}>
        {license.seats !== null && (
          <>
            <label htmlFor="license-seats">Seats</label>
            <input
              id="license-seats"
              type="number"
              required
              min={Math.max(1, license.used_seats)}
              max={1_000_000}
              data-autofocus
              aria-describedby="license-seats-hint"
              value={seats}
              onChange={(e) => setSeats(e.target.value)}
            />
            <p id="license-seats-hint" className="hint">
              Never fewer than the {license.used_seats} given.
            </p>
          </>
        )}
        <label htmlFor="license-until">Valid until (empty: no end)</label>
        <input
          id="license-until"
          type="datetime-local"
          value={until}
          onChange={(e) => setUntil(e.target.value)}
          {...(license.seats === null ? { 'data-autofocus': true } : {})}
        />
        <DialogEnd error={save.error ? messageOf(save.error) : undefined} onClose={onClose}>
          <button type="submit" disabled={save.isPending}>
            Save
          </button>
        </DialogEnd>
      </form>
    </ModalDialog>
  );
}
