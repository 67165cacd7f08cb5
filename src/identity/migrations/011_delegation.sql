-- Agents acting for people (RFC 8693 delegation). A delegated access token names the token it was exchanged from
-- (parent_token_id, the subject token's row) and the principals from the person to the agent holding it
-- (delegation_chain). Its principal_id is the person's: the token acts for them.
ALTER TABLE oauth_tokens ADD COLUMN delegation_chain jsonb;
ALTER TABLE oauth_tokens ADD COLUMN parent_token_id uuid;
CREATE INDEX oauth_tokens_parent_idx ON oauth_tokens (parent_token_id) WHERE parent_token_id IS NOT NULL;
CREATE INDEX oauth_tokens_delegated_idx ON oauth_tokens (principal_id, created_at) WHERE delegation_chain IS NOT NULL;

-- Revoking a token revokes every token delegated from it, down the chain, whichever path revoked it (the revocation
-- endpoint, a refresh family, a withdrawn consent, the management API): each child's update fires this trigger again.
CREATE FUNCTION oauth_tokens_revoke_delegated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE oauth_tokens SET revoked = true, revoked_at = now(), revoked_reason = 'parent_revoked'
   WHERE parent_token_id = NEW.id AND NOT revoked;
  RETURN NULL;
END $$;
CREATE TRIGGER oauth_tokens_revoke_delegated AFTER UPDATE OF revoked ON oauth_tokens
  FOR EACH ROW WHEN (NEW.revoked AND NOT OLD.revoked) EXECUTE FUNCTION oauth_tokens_revoke_delegated();

-- An agent may be required to bind its delegated tokens to a key (RFC 9449 DPoP).
ALTER TABLE agents ADD COLUMN dpop_required boolean NOT NULL DEFAULT false;

-- A person's approval of an agent acting for them (requires_confirmation): approved scopes, and scopes asked for
-- and not yet approved (the pending request the person sees). One row per (person, agent).
CREATE TABLE agent_approvals (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  principal_id uuid NOT NULL REFERENCES principals (id) ON DELETE CASCADE,
  agent_id uuid NOT NULL REFERENCES principals (id) ON DELETE CASCADE,
  scopes jsonb NOT NULL DEFAULT '[]'::jsonb,
  pending_scopes jsonb NOT NULL DEFAULT '[]'::jsonb,
  requested_at timestamptz,
  approved_at timestamptz,
  approved_by uuid REFERENCES principals (id) ON DELETE SET NULL,
  denied_at timestamptz,
  revoked_at timestamptz,
  revoked_reason text,
  last_used_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (principal_id, agent_id)
);
CREATE INDEX agent_approvals_agent_idx ON agent_approvals (agent_id);

-- Every token exchange by an agent: who (actor), for whom (the chain's root), which scopes, when, and its outcome.
CREATE TABLE delegation_exchanges (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  created_at timestamptz NOT NULL DEFAULT now(),
  principal_id uuid NOT NULL REFERENCES principals (id) ON DELETE CASCADE,
  actor_id uuid NOT NULL REFERENCES principals (id) ON DELETE CASCADE,
  delegation_chain jsonb NOT NULL,
  client_id text NOT NULL,
  scopes jsonb NOT NULL DEFAULT '[]'::jsonb,
  audience jsonb NOT NULL DEFAULT '[]'::jsonb,
  outcome text NOT NULL CHECK (outcome IN ('issued', 'refused')),
  error text,
  token_id uuid,
  parent_token_id uuid,
  expires_at timestamptz,
  client_ip text
);
CREATE INDEX delegation_exchanges_principal_idx ON delegation_exchanges (principal_id, created_at);
CREATE INDEX delegation_exchanges_actor_idx ON delegation_exchanges (actor_id, created_at);
