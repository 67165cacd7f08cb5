import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { whenOrNever } from '../../app/datetime.ts';
import { ApiError } from '../../api/client.ts';
import { DialogEnd, ModalDialog } from '../../app/ModalDialog.tsx';
import { messageOf } from '../../data/errors.ts';
import { keys } from '../../data/keys.ts';
import { identityApi } from '../api.ts';
import type { ApiOrganization } from '../orgs/api.ts';
import { PLANS, SUBSCRIPTION_STATUSES, type ApiSubscription, type PlanTier, type SubscriptionStatus } from './api.ts';

/**
 * An organization's subscription: its plan, status and period, as the payment provider's webhooks left it; a platform
 * admin starts one by hand or changes it (identity refuses a status move the webhooks would not make, 409).
 */
export function SubscriptionPanel({ org }: { org: ApiOrganization }) {
  const client = useQueryClient();
  const path = `/organizations/${encodeURIComponent(org.id)}/subscription`;
  const sub = useQuery({
    queryKey: keys.market.subscription(org.id),
    // No subscription is an answer, not a failure.
    queryFn: async ({ signal }) => {
      try {
        return await identityApi.get<ApiSubscription>(path, signal);
      } catch (err) {
        if (err instanceof ApiError && err.status === 404) return null;
        throw err;
      }
    },
  });
  const [editing, setEditing] = useState(false);
  const [said, setSaid] = useState('');
  const s = sub.data;
  return (
    <section aria-labelledby="subscription-title">
      <h2 id="subscription-title">Subscription</h2>
      {sub.error && (
        <p role="alert" className="error">
          {messageOf(sub.error, 'the subscription could not be loaded')}
        </p>
      )}
      {s === null && <p>No subscription.</p>}
      {s && (
        <dl className="facts">
          <dt>Plan</dt>
          <dd>{PLANS[s.plan_tier] ?? s.plan_tier}</dd>
          <dt>Status</dt>
          <dd>
            {SUBSCRIPTION_STATUSES[s.status] ?? s.status}
            {s.cancel_at_period_end ? ', ends with the period' : ''}
          </dd>
          <dt>Period</dt>
          <dd>
            {s.current_period_start
              ? `${whenOrNever(s.current_period_start)} to ${whenOrNever(s.current_period_end)}`
              : 'not set'}
          </dd>
          {s.payment_subscription_id && (
            <>
              <dt>Payment subscription</dt>
              <dd>
                <code>{s.payment_subscription_id}</code>
              </dd>
            </>
          )}
        </dl>
      )}
      <p role="status" className="status">
        {said}
      </p>
      {s !== undefined && (
        <div className="actions">
          <button type="button" className="secondary" onClick={() => setEditing(true)}>
            {s ? 'Change subscription' : 'Start a subscription'}
          </button>
        </div>
      )}
      {editing && s !== undefined && (
        <SubscriptionDialog
          path={path}
          current={s}
          onClose={() => setEditing(false)}
          onSaved={(saved) => {
            client.setQueryData(keys.market.subscription(org.id), saved);
            setEditing(false);
            setSaid(
              `The subscription is ${SUBSCRIPTION_STATUSES[saved.status].toLowerCase()}, on ${PLANS[saved.plan_tier]}.`,
            );
          }}
        />
      )}
    </section>
  );
}

function SubscriptionDialog({
  path,
  current,
  onClose,
  onSaved,
}: {
  path: string;
  current: ApiSubscription | null;
  onClose: () => void;
  onSaved: (s: ApiSubscription) => void;
}) {
  const [plan, setPlan] = useState<PlanTier>(current?.plan_tier ?? 'starter');
  const [status, setStatus] = useState<SubscriptionStatus>(current?.status ?? 'active');
  const [ending, setEnding] = useState(current?.cancel_at_period_end ?? false);
  // A new subscription starts active or on trial; the other states are moves of a running one.
  const statuses = (Object.keys(SUBSCRIPTION_STATUSES) as SubscriptionStatus[]).filter(
    (st) => current || st === 'active' || st === 'trialing',
  );
  const save = useMutation({
    mutationFn: () => {
      const body: Record<string, unknown> = { plan_tier: plan, cancel_at_period_end: ending };
      if (!current || status !== current.status) body.status = status;
      return identityApi.call<ApiSubscription>(current ? 'PATCH' : 'POST', path, { body });
    },
    onSuccess: onSaved,
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate();
  };
  return (
    <ModalDialog title={current ? 'Change the subscription' : 'Start a subscription'} onClose={onClose}>
      <form className="form" onSubmit={submit}>
        <p className="hint">Normally the payment provider's webhooks move it; a change here is recorded as yours.</p>
        <label htmlFor="sub-plan">Plan</label>
        <select id="sub-plan" data-autofocus value={plan} onChange={(e) => setPlan(e.target.value as PlanTier)}>
          {(Object.keys(PLANS) as PlanTier[]).map((p) => (
            <option key={p} value={p}>
              {PLANS[p]}
            </option>
          ))}
        </select>
        <label htmlFor="sub-status">Status</label>
        <select id="sub-status" value={status} onChange={(e) => setStatus(e.target.value as SubscriptionStatus)}>
          {statuses.map((st) => (
            <option key={st} value={st}>
              {SUBSCRIPTION_STATUSES[st]}
            </option>
          ))}
        </select>
        <label className="check">
          <input type="checkbox" checked={ending} onChange={(e) => setEnding(e.target.checked)} />
          Ends with the current period
        </label>
        <DialogEnd error={save.error ? messageOf(save.error) : undefined} onClose={onClose}>
          <button type="submit" disabled={save.isPending}>
            Save
          </button>
        </DialogEnd>
      </form>
    </ModalDialog>
  );
}
