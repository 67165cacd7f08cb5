/**
 * Identity's organizations as the console reads them (src/identity/organizations/routes.ts, people-routes.ts and
 * src/identity/invites/routes.ts). Names, descriptions, URLs, emails and messages were typed by someone: the screens
 * render them as text only, a URL a link only through SafeLink.
 */
export type OrgType = 'personal' | 'team' | 'enterprise';

export interface ApiOrganization {
  id: string;
  name: string;
  slug: string;
  org_type: OrgType;
  logo_url: string | null;
  description: string | null;
  website_url: string | null;
  active: boolean;
  owner_principal_id: string | null;
  created_at: string;
  updated_at: string;
}

export interface ApiMember {
  id: string;
  organization_id: string;
  principal_id: string;
  role: string;
  active: boolean;
  created_at: string;
  principal: {
    id: string;
    type: string;
    identifier: string;
    display_name: string;
    email: string | null;
    active: boolean;
  };
}

export type InviteStatus = 'pending' | 'accepted' | 'declined' | 'expired' | 'revoked';

export interface ApiInvite {
  id: string;
  organization_id: string;
  email: string;
  role: string;
  status: InviteStatus;
  message: string | null;
  expires_at: string;
  accepted_at: string | null;
  resend_count: number;
  last_sent_at: string | null;
  created_at: string;
}

/** What sending or re-sending an invitation answers: the link with its token, shown once. */
export interface ApiIssuedInvite {
  invite: ApiInvite;
  link: string;
  mailed: boolean;
}

/** An organization's enterprise SSO connector (src/identity/enterprise-sso/routes.ts): never its client secret. */
export interface ApiEnterpriseSso {
  organization_id: string;
  issuer: string;
  client_id: string;
  has_client_secret: boolean;
  domains: string[];
  created_at: string;
  updated_at: string;
}

export const ORG_TYPES: Record<OrgType, string> = { personal: 'Personal', team: 'Team', enterprise: 'Enterprise' };

/** The roles the platform gives meaning to (the marketplace's managers are owners and admins); any other may be typed. */
export const KNOWN_ROLES = ['owner', 'admin', 'member'] as const;

/** A role as identity accepts it: letters, digits and `_ . : -`. */
export const ROLE_PATTERN = '[A-Za-z0-9_.:\\-]+';
