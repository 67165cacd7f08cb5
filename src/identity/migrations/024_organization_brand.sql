-- An organization's brand colour (#rrggbb, contrast-checked by src/identity/apps/brand.ts before it is written), worn
-- with its logo_url by the sign-in and consent pages of a request naming the organization, before the app's own.
ALTER TABLE organizations ADD COLUMN brand_color text CHECK (brand_color ~ '^#[0-9a-f]{6}$');
