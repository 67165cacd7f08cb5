import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api } from '../api/client.ts';
import type { ApiTenant, ApiUser } from '../api/types.ts';
import { useScreen } from '../app/useTitle.ts';
import { messageOf } from '../data/errors.ts';
import { keys } from '../data/keys.ts';
import { tenantsQuery } from '../data/queries.ts';
import { useReturnFocus } from './useReturnFocus.ts';
import { PLANS, PLAN_NAMES, slugOf, type Plan } from './format.ts';
import { whenOrNever } from '../app/datetime.ts';
import { WideTable } from '../app/WideTable.tsx';

const PLAN_HINT =
  "The plan is the tenant's rate-limit tier: by default free 60, pro 300 and enterprise 1,000 requests a minute (the operator may set other values).";

/** Tenants the signed-in owner owns: create one (they become its owner), rename it, change its plan. */
export default function TenantsScreen({ me }: { me: ApiUser }) {
  useScreen('Tenants');
  const list = useQuery(tenantsQuery());
  const tenants = list.data;
  const [panel, setPanel] = useState<{ kind: 'none' } | { kind: 'create' } | { kind: 'edit'; tenant: ApiTenant }>({
    kind: 'none',
  });
  const [message, setMessage] = useState('');
  const createButton = useReturnFocus<HTMLButtonElement>(panel.kind !== 'none');
  const saved = (m: string) => {
    setPanel({ kind: 'none' });
    setMessage(m);
  };

  return (
    <>
      <h1>Tenants</h1>
      <p>Tenants where {me.email} is an owner. Each has its own users, data sources and dashboards.</p>
      <p role="status" className="status">
        {message}
      </p>
      {list.error && (
        <p role="alert" className="error">
          {messageOf(list.error, 'the tenants could not be loaded')}
        </p>
      )}
      {panel.kind === 'none' && (
        <button
          type="button"
          ref={createButton}
          onClick={() => {
            setMessage('');
            setPanel({ kind: 'create' });
          }}
        >
          Create tenant
        </button>
      )}
      {panel.kind !== 'none' && (
        <TenantForm
          editing={panel.kind === 'edit' ? panel.tenant : undefined}
          onCancel={() => setPanel({ kind: 'none' })}
          onSaved={saved}
        />
      )}
      {tenants && (
        <WideTable label="Your tenants">
          <table>
            <caption>Your tenants</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Short name</th>
                <th scope="col">Plan (rate-limit tier)</th>
                <th scope="col">Created</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {tenants.map((t) => (
                <tr key={t.id}>
                  <th scope="row">{t.name}</th>
                  <td>{t.slug}</td>
                  <td>{PLAN_NAMES[t.plan]}</td>
                  <td>{whenOrNever(t.createdAt)}</td>
                  <td className="actions">
                    <button
                      type="button"
                      className="secondary"
                      onClick={() => {
                        setMessage('');
                        setPanel({ kind: 'edit', tenant: t });
                      }}
                      aria-label={`Edit ${t.name}`}
                    >
                      Edit
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </WideTable>
      )}
    </>
  );
}

function TenantForm({
  editing,
  onSaved,
  onCancel,
}: {
  editing?: ApiTenant | undefined;
  onSaved: (m: string) => void;
  onCancel: () => void;
}) {
  const [name, setName] = useState(editing?.name ?? '');
  const [slug, setSlug] = useState(editing?.slug ?? '');
  const [slugEdited, setSlugEdited] = useState(false);
  const [plan, setPlan] = useState<Plan>(editing?.plan ?? 'free');
  const client = useQueryClient();
  const save = useMutation({
    mutationFn: async () => {
      if (editing) {
        const t = (await api<ApiTenant>('PATCH', `/admin/tenants/${editing.id}`, { body: { name, plan } })).data;
        return `${t.name} saved: plan ${PLAN_NAMES[t.plan]}.`;
      }
      const t = (await api<ApiTenant>('POST', '/admin/tenants', { body: { name, slug, plan } })).data;
      return `Tenant ${t.name} created with you as its owner. To work in it, sign out and sign in with the tenant ${t.slug}.`;
    },
    onSuccess: async (said) => {
      await client.invalidateQueries({ queryKey: keys.tenants });
      onSaved(said);
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate();
  };

  return (
    <form className="form" onSubmit={submit} aria-labelledby="tenant-form-title">
      <h2 id="tenant-form-title">{editing ? `Edit ${editing.name}` : 'Create a tenant'}</h2>
      <label htmlFor="tenant-name">Name</label>
      <input
        id="tenant-name"
        required
        maxLength={200}
        value={name}
        autoFocus
        onChange={(e) => {
          setName(e.target.value);
          if (!editing && !slugEdited) setSlug(slugOf(e.target.value));
        }}
      />
      {!editing && (
        <>
          <label htmlFor="tenant-slug">Short name</label>
          <input
            id="tenant-slug"
            required
            maxLength={100}
            pattern="[a-z0-9]+(-[a-z0-9]+)*"
            aria-describedby="tenant-slug-hint"
            value={slug}
            onChange={(e) => {
              setSlugEdited(true);
              setSlug(e.target.value);
            }}
          />
          <p id="tenant-slug-hint" className="hint">
            Lower-case letters, digits and single hyphens; it cannot change later.
          </p>
        </>
      )}
      <label htmlFor="tenant-plan">Plan</label>
      <select
        id="tenant-plan"
        value={plan}
        onChange={(e) => setPlan(e.target.value as Plan)}
        aria-describedby="tenant-plan-hint"
      >
        {PLANS.map((p) => (
          <option key={p} value={p}>
            {PLAN_NAMES[p]}
          </option>
        ))}
      </select>
      <p id="tenant-plan-hint" className="hint">
        {PLAN_HINT}
      </p>
      {save.error && (
        <p role="alert" className="error">
          {messageOf(save.error)}
        </p>
      )}
      <div className="actions">
        <button type="submit" disabled={save.isPending}>
          {editing ? 'Save tenant' : 'Create tenant'}
        </button>
        <button type="button" className="secondary" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
