import { useQuery } from '@tanstack/react-query';
import { useId } from 'react';
import { WideTable } from '../../app/WideTable.tsx';
import { messageOf } from '../../data/errors.ts';
import { noticesQuery } from './api.ts';
import { when } from './format.ts';

const STATUS = { pending: 'Waiting to be tried again', delivered: 'Delivered', failed: 'Failed' } as const;

/** The site's latest notices (not the tests): where each went, and whether it got there after how many tries. */
export function NoticesList({ siteId }: { siteId: string }) {
  const heading = useId();
  const notices = useQuery(noticesQuery(siteId));
  return (
    <section aria-labelledby={heading}>
      <h3 id={heading}>Recent notices</h3>
      {notices.error && (
        <p role="alert" className="error">
          {messageOf(notices.error, 'the audit service could not be reached')}
        </p>
      )}
      {notices.data?.length === 0 && <p>No notice sent yet: a run is compared with the one before it.</p>}
      {notices.data && notices.data.length > 0 && (
        <WideTable label="Recent notices">
          <table>
            <caption>The site's latest notices, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Made</th>
                <th scope="col">To</th>
                <th scope="col">Status</th>
              </tr>
            </thead>
            <tbody>
              {notices.data.map((n) => (
                <tr key={n.id}>
                  <td>{when(n.createdAt)}</td>
                  <td className="site-url">
                    {n.channel === 'email' ? 'Mail to' : 'Webhook'} {n.target}
                  </td>
                  <td>
                    {STATUS[n.status]} after {n.attempts} {n.attempts === 1 ? 'try' : 'tries'}
                    {n.lastError ? `: ${n.lastError}` : ''}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </WideTable>
      )}
    </section>
  );
}
