/**
 * Identity's delegations as the console reads them (src/identity/delegation/overview-routes.ts). Names, identifiers,
 * models and scopes were typed by someone (an agent's registration, a person's profile): rendered as text only.
 */
export type ApprovalStatus = 'pending' | 'approved' | 'denied' | 'revoked';

export interface ApiDelegation {
  person: { id: string; display_name: string; email: string | null; active: boolean };
  agent: {
    id: string;
    display_name: string;
    identifier: string;
    model_id: string;
    version: string | null;
    requires_confirmation: boolean;
    active: boolean;
  };
  approval: {
    status: ApprovalStatus;
    scopes: string[];
    pending_scopes: string[];
    requested_at: string | null;
    approved_at: string | null;
    revoked_at: string | null;
    revoked_reason: string | null;
    last_used_at: string | null;
  } | null;
  live_tokens: number;
}

export const STATUS_NAMES: Record<ApprovalStatus | 'none', string> = {
  pending: 'Waiting for approval',
  approved: 'Approved',
  denied: 'Declined',
  revoked: 'Withdrawn',
  none: 'No request yet',
};
