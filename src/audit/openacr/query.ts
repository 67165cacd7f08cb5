import { Type, type Static } from 'typebox';
import { codeForStatus, HttpError } from '../../kit/errors.ts';
import type { AuditResult } from '../result/types.ts';
import { buildOpenAcr, UnknownCatalogError, type OpenAcrDefaults } from './report.ts';
import { CONTENT_TYPES, serializeOpenAcr, type OpenAcrFormat } from './serialize.ts';
import { CATALOGS } from './catalog.ts';

const text = (description: string, maxLength = 300) =>
  Type.Optional(Type.String({ minLength: 1, maxLength, description }));
const email = (description: string) =>
  Type.Optional(Type.String({ minLength: 3, maxLength: 254, pattern: '^[^\\s@]+@[^\\s@]+$', description }));

/** Document 3's query parameters of `GET /api/v1/audits/{id}/openacr`. Metadata only, never credentials. */
export const OpenAcrQuery = Type.Object(
  {
    format: Type.Optional(
      Type.Union([Type.Literal('yaml'), Type.Literal('json')], {
        default: 'yaml',
        description: 'yaml (default) or json',
      }),
    ),
    product_name: text('Product name; default: the audited URL', 500),
    product_version: text('Product version; default: none', 100),
    author_name: text('Author name; default: the configured author (AUDIT_OPENACR_AUTHOR_NAME)'),
    author_email: email(
      "Author email; default: the configured one (AUDIT_OPENACR_AUTHOR_EMAIL), else empty, as GSA's schema requires the field",
    ),
    vendor_name: text('Vendor company name; default: none'),
    vendor_email: email('Vendor email; default: none'),
    catalog: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        description: `OpenACR catalog id; default: the one for the audit's WCAG version. Known: ${CATALOGS.map((c) => c.id).join(', ')}`,
      }),
    ),
  },
  { additionalProperties: false },
);
export type OpenAcrQuery = Static<typeof OpenAcrQuery>;

/** The answer of the OpenACR route for a completed audit: the report in the asked format, or a 400 for an unknown catalog. */
export function openAcrResponse(
  result: AuditResult,
  query: OpenAcrQuery,
  defaults: OpenAcrDefaults,
): { contentType: string; body: string } {
  const format: OpenAcrFormat = query.format ?? 'yaml';
  try {
    const report = buildOpenAcr(
      result,
      {
        catalog: query.catalog,
        productName: query.product_name,
        productVersion: query.product_version,
        authorName: query.author_name,
        authorEmail: query.author_email,
        vendorName: query.vendor_name,
        vendorEmail: query.vendor_email,
      },
      defaults,
    );
    return { contentType: CONTENT_TYPES[format], body: serializeOpenAcr(report, format) };
  } catch (e) {
    if (e instanceof UnknownCatalogError) throw new HttpError(400, codeForStatus(400), e.message);
    throw e;
  }
}
