/**
 * The moves of a listing's `status`, and who may make each. Everything not in this table is refused
 * with 409 CONFLICT. A listing's managers are the owners and admins of its creator organization, and
 * platform admins; the reviewer is a platform admin (or IDENTITY_ADMIN_TOKEN).
 */
export const LISTING_STATUSES = ['draft', 'pending_review', 'published', 'archived'] as const;
export type ListingStatus = (typeof LISTING_STATUSES)[number];

export type ListingAction = 'submit' | 'withdraw' | 'publish' | 'archive';

export interface Move {
  from: ListingStatus;
  to: ListingStatus;
  /** Who may make the move: the listing's managers (a platform admin counts as one), or only the reviewer. */
  by: 'manager' | 'reviewer';
}

export const LISTING_MOVES: Record<ListingAction, Move> = {
  // The creator organization asks for review.
  submit: { from: 'draft', to: 'pending_review', by: 'manager' },
  // Back to draft: the managers withdraw it, or the reviewer sends it back (a rejection).
  withdraw: { from: 'pending_review', to: 'draft', by: 'manager' },
  // Only the reviewer publishes; published_at is set by the first (and only) publication.
  publish: { from: 'pending_review', to: 'published', by: 'reviewer' },
  // Taken off the market for good: existing licenses stay, no new ones are sold.
  archive: { from: 'published', to: 'archived', by: 'manager' },
};

export const LISTING_ACTIONS = Object.keys(LISTING_MOVES) as ListingAction[];
