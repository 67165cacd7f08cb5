-- Which users' platform accounts this tenant's Add user made. Only those may get a new choose-your-password link
-- from this tenant's admins: an admin who adds an address that another tenant's Add user made an account for must
-- not obtain a way into that person's account (and through it, into the other tenant).
ALTER TABLE users ADD COLUMN made_platform_account boolean NOT NULL DEFAULT false;

-- Users added before the column: their user.create record says whether identity made their account.
UPDATE users u SET made_platform_account = true
  FROM audit_log a
 WHERE a.tenant_id = u.tenant_id AND a.action = 'user.create' AND a.target_type = 'user'
   AND a.target_id = u.id::text AND a.details->>'platformAccount' = 'created';
