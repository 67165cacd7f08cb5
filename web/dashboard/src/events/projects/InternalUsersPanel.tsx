import { useQueryClient } from '@tanstack/react-query';
import { useMemo } from 'react';
import type { ApiProject, ApiProjectInternalUsers } from '../admin-api.ts';
import { ListSettingPanel, type ListSetting } from './ListSettingPanel.tsx';

/**
 * The project's internal and test users, whose events the explorer hides on "Hide internal and test users". A save
 * also drops the explorer's cached reads, so its next counts leave out whom the list now names.
 */
export function InternalUsersPanel({ project }: { project: ApiProject }) {
  const client = useQueryClient();
  const setting = useMemo<ListSetting<'users', ApiProjectInternalUsers>>(
    () => ({
      path: 'internal-users',
      field: 'users',
      ids: { one: 'internal-user', many: 'internal-users' },
      heading: 'Internal and test users',
      help: (
        <>
          The team’s own and test accounts, by the <code>user.id</code> their events carry. The explorer leaves their
          events out of its counts and list when “Hide internal and test users” is ticked. An entry ending in{' '}
          <code>*</code> is a prefix: <code>test-*</code> is every id starting with <code>test-</code>. Ids are compared
          exactly, capitals included. At most 100 entries.
        </>
      ),
      words: {
        entry: 'User id or prefix',
        empty: 'No user is marked internal or test.',
        saved: (n) =>
          n === 0
            ? 'No user is marked internal or test.'
            : `${n} entr${n === 1 ? 'y' : 'ies'} marked internal or test.`,
        edit: 'Edit internal and test users',
        add: 'Add a user id or prefix',
        save: 'Save internal and test users',
      },
      input: { maxLength: 256, placeholder: 'ann@example.com or test-*' },
      maxEntries: 100,
      entryNote: (x) =>
        x.endsWith('*') ? <span className="hint"> (every id starting with {x.slice(0, -1)})</span> : null,
      saved: (projectId) => void client.invalidateQueries({ queryKey: ['events', 'read', projectId] }),
    }),
    [client],
  );
  return <ListSettingPanel project={project} setting={setting} />;
}
