import { useState } from 'react';
import type { ApiCreatedUser } from '../api/types.ts';
import { ROLE_NAMES } from './format.ts';

/** "valid 7 days" from the link's expiry: whole days, or hours for a link shorter than a day (IDENTITY_PASSWORD_LINK_TTL). */
function validity(expiresAt: string): string {
  const hours = Math.max(1, Math.round((Date.parse(expiresAt) - Date.now()) / 3_600_000));
  if (hours < 24) return `${hours} hour${hours === 1 ? '' : 's'}`;
  const days = Math.round(hours / 24);
  return `${days} day${days === 1 ? '' : 's'}`;
}

/** What Add user says: the one-time link to pass on when identity made an account, or that the person has one already. */
export function addedMessage(u: ApiCreatedUser): string {
  const added = `${u.name} (${u.email}) is added as ${ROLE_NAMES[u.role].toLowerCase()}.`;
  if (u.platformAccount === 'existing')
    return `${added} ${u.email} already has a platform account: they sign in with it.`;
  if (u.platformAccount === 'created') return added;
  return `${added} They sign in with a provider that confirms this email.`;
}

/**
 * The setup link, shown once (the service keeps it nowhere): in a status region so it is announced, as selectable text
 * (not a link: the admin sends it, opening it here would set the password as the admin), with a Copy button.
 */
export function SetupLinkNotice({
  user,
}: {
  user: ApiCreatedUser & { setupLink: string; setupLinkExpiresAt: string };
}) {
  const [copied, setCopied] = useState('');
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(user.setupLink);
      setCopied('Link copied.');
    } catch {
      // No clipboard (an insecure origin, a refused permission): the text stays selectable.
      setCopied('Copying is not available here: select the link and copy it.');
    }
  };
  return (
    <div className="setup-link">
      <p role="status">
        Send {user.name} this link to choose a password: <code className="link-text">{user.setupLink}</code> (valid{' '}
        {validity(user.setupLinkExpiresAt)}, once)
      </p>
      <div className="actions">
        <button
          type="button"
          className="secondary"
          onClick={copy}
          aria-label={`Copy the password link for ${user.name}`}
        >
          Copy
        </button>
        <span role="status">{copied}</span>
      </div>
    </div>
  );
}
