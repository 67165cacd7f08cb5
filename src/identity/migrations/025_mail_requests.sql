-- Mails asked for on the pages whose answer must not tell whether an address has an account ("forgot password", "email
-- me a sign-in code"; src/identity/courier/). The request path stores one row for every request, whatever the address,
-- and answers; a courier on any instance claims the row, looks the address up, and mails the person if there is one.
-- A restart or an SMTP outage loses nothing, and every instance shares the work.
--
-- No secret is kept here: the reset link's token or the sign-in code is made when the row is handled (stored hashed in
-- password_links or email_codes, as ever), so the table tells a reader only who asked for what.
CREATE TABLE mail_requests (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  kind text NOT NULL CHECK (kind IN ('password_reset', 'sign_in_code')),
  -- The address asked for, normalised (lower case), whether or not an account uses it.
  email text NOT NULL,
  -- The asking page's language: the mail's.
  lang text NOT NULL,
  -- sign_in_code: the SHA-256 of the sign-in request's uid, which the code is bound to (email_codes.bound_to).
  bound_to text,
  requested_at timestamptz NOT NULL DEFAULT now(),
  -- Claims made (each one pushes next_attempt_at past a lease, so an instance that dies holding one leaves it to another).
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX mail_requests_due_idx ON mail_requests (next_attempt_at);
