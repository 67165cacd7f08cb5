import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { WideTable } from '../../app/WideTable.tsx';
import { messageOf } from '../../data/errors.ts';
import {
  ingestApi,
  ingestKeys,
  seg,
  type ApiProject,
  type ApiTrackingPlan,
  type ApiTrackingPlanViolations,
} from '../admin-api.ts';

const UNREACHABLE = 'the ingest service could not be reached';
const MODES = {
  off: 'Off: nothing is checked.',
  report: 'Report: every event is stored; those breaking the plan are counted below.',
  enforce: 'Enforce: events breaking the plan are rejected (the sender’s answer says why) and counted below.',
} as const;
const REASONS: Record<string, string> = {
  unplanned_event: 'Event not in the plan',
  missing_property: 'Required property missing',
  property_type: 'Property of the wrong type',
  unplanned_property: 'Property not in the plan',
};

/**
 * The project's tracking plan (docs/ingest.md, "Tracking plan"), edited as JSON in a text area: the service checks
 * it and says what it refuses; a text that is not JSON is said here before anything is sent. Below, the events that
 * broke it over the last 24 hours, by event and reason.
 */
export function TrackingPlanPanel({ project }: { project: ApiProject }) {
  const client = useQueryClient();
  const key = [...ingestKeys.project(project.id), 'tracking-plan'];
  const url = `/projects/${seg(project.id)}/tracking-plan`;
  const plan = useQuery({ queryKey: key, queryFn: ({ signal }) => ingestApi.get<ApiTrackingPlan>(url, signal) });
  const violations = useQuery({
    queryKey: [...key, 'violations'],
    queryFn: ({ signal }) => ingestApi.get<ApiTrackingPlanViolations>(`${url}/violations`, signal),
  });
  const [draft, setDraft] = useState<string>();
  const [notJson, setNotJson] = useState<string>();
  const [said, setSaid] = useState('');
  // The focus goes to the text area when it opens, and back to Edit after a save or Cancel.
  const [focusAt, setFocusAt] = useState<'area' | 'edit'>();
  const area = useRef<HTMLTextAreaElement>(null);
  const edit = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (!focusAt) return;
    (focusAt === 'area' ? area : edit).current?.focus();
    setFocusAt(undefined);
  }, [focusAt]);
  const save = useMutation({
    mutationFn: (body: unknown) => ingestApi.call<ApiTrackingPlan>('PUT', url, { body }),
    onSuccess: (answer) => {
      client.setQueryData(key, answer);
      setDraft(undefined);
      setSaid(`Tracking plan saved. ${MODES[answer.mode]}`);
      setFocusAt('edit');
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    let body: unknown;
    try {
      body = JSON.parse(draft ?? '');
    } catch (err) {
      setNotJson(`The plan is not valid JSON: ${(err as Error).message}`);
      return;
    }
    setNotJson(undefined);
    save.mutate(body);
  };
  const problem = notJson ?? (save.error ? messageOf(save.error, UNREACHABLE) : undefined);
  const current = plan.data;
  const { project_id: _, ...editable } = current ?? { project_id: '' };
  const seen = violations.data;
  return (
    <section className="screen-section" aria-labelledby="project-tracking-plan">
      <h2 id="project-tracking-plan">Tracking plan</h2>
      <p className="hint" id="tracking-plan-help">
        The events this project expects and, for each, its properties: <code>name</code> is an <code>event.type</code>{' '}
        or a custom event’s <code>event.name</code>; a property is a top-level field or <code>metadata.key</code>, of{' '}
        <code>type</code> string, number, boolean, object or array, optionally <code>required</code>. <code>mode</code>{' '}
        is <code>off</code>, <code>report</code> or <code>enforce</code>.
      </p>
      {plan.error !== null && (
        <p role="alert" className="error">
          {messageOf(plan.error, UNREACHABLE)}
        </p>
      )}
      <p role="status" className="status">
        {said}
      </p>
      {current && draft === undefined && (
        <>
          <p>
            {MODES[current.mode]}{' '}
            {current.events.length === 0
              ? 'No event is planned.'
              : `${current.events.length} event${current.events.length === 1 ? '' : 's'} planned: ${current.events.map((e) => e.name).join(', ')}.`}{' '}
            {current.mode !== 'off' && !current.allow_unplanned_events && 'Events not planned break the plan.'}
          </p>
          <div className="actions">
            <button
              type="button"
              ref={edit}
              className="secondary"
              onClick={() => {
                save.reset();
                setSaid('');
                setNotJson(undefined);
                setDraft(JSON.stringify(editable, null, 2));
                setFocusAt('area');
              }}
            >
              Edit tracking plan
            </button>
          </div>
        </>
      )}
      {draft !== undefined && (
        <form className="form" onSubmit={submit} aria-label="Tracking plan">
          <label htmlFor="tracking-plan-json">Plan (JSON)</label>
          <textarea
            id="tracking-plan-json"
            ref={area}
            rows={14}
            spellCheck={false}
            className="code"
            value={draft}
            aria-invalid={problem ? true : undefined}
            aria-describedby={problem ? 'tracking-plan-error tracking-plan-help' : 'tracking-plan-help'}
            onChange={(e) => setDraft(e.target.value)}
          />
          {problem && (
            <p role="alert" className="error" id="tracking-plan-error">
              {problem}
            </p>
          )}
          <div className="actions">
            <button type="submit" disabled={save.isPending}>
              Save tracking plan
            </button>
            <button
              type="button"
              className="secondary"
              onClick={() => {
                setDraft(undefined);
                save.reset();
                setFocusAt('edit');
              }}
            >
              Cancel
            </button>
          </div>
        </form>
      )}
      <h3>Violations in the last 24 hours</h3>
      {violations.error !== null && (
        <p role="alert" className="error">
          {messageOf(violations.error, UNREACHABLE)}
        </p>
      )}
      {seen && seen.items.length === 0 && <p>No event broke the plan.</p>}
      {seen && seen.items.length > 0 && (
        <WideTable label="Violations">
          <table>
            <caption>Events that broke the tracking plan, most first</caption>
            <thead>
              <tr>
                <th scope="col">Event</th>
                <th scope="col">Reason</th>
                <th scope="col">Events</th>
              </tr>
            </thead>
            <tbody>
              {seen.items.map((v) => (
                <tr key={`${v.event}\u0000${v.reason}`}>
                  <th scope="row">
                    <code>{v.event}</code>
                  </th>
                  <td>{REASONS[v.reason] ?? v.reason}</td>
                  <td>{v.count.toLocaleString('en')}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </WideTable>
      )}
    </section>
  );
}
