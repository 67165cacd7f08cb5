import { CATALOGS, type ChapterId } from '../../../src/audit/openacr/catalog.ts';

/**
 * GSA's OpenACR schema (GSA/openacr schema/openacr-0.1.0.json, draft-07) made strict where the catalog is:
 * its required fields (`title`, `product.name`, `author` with `email`, `level` of an adherence), its types
 * (`version` integer, strings elsewhere), plus what `openacr validate -c catalog` checks — adherence levels
 * from the catalog's terms, component names from the catalog — and what Document 3 requires of our output.
 */
const contact = {
  type: 'object',
  properties: {
    name: { type: 'string' },
    company_name: { type: 'string' },
    address: { type: 'string' },
    email: { type: 'string' },
    phone: { type: 'string' },
    website: { type: 'string' },
  },
  required: ['email'],
};

function chapter(criteria: string[]) {
  return {
    type: 'object',
    required: ['notes', 'criteria'],
    properties: {
      notes: { type: 'string', minLength: 1 },
      disabled: { type: 'boolean' },
      criteria: {
        type: 'array',
        minItems: criteria.length,
        maxItems: criteria.length,
        items: {
          type: 'object',
          required: ['num', 'components'],
          properties: {
            num: { type: 'string', enum: criteria },
            components: {
              type: 'array',
              minItems: 1,
              items: {
                type: 'object',
                required: ['name', 'adherence'],
                properties: {
                  name: { const: 'web' },
                  adherence: {
                    type: 'object',
                    required: ['level', 'notes'],
                    properties: {
                      level: {
                        enum: ['supports', 'partially-supports', 'does-not-support', 'not-applicable', 'not-evaluated'],
                      },
                      notes: { type: 'string', minLength: 1 },
                    },
                  },
                },
              },
            },
          },
        },
      },
    },
  };
}

/** The schema an OpenACR report against `catalogId` must meet, with the chapters a `level` audit lists. */
export function openAcrSchema(catalogId: string, chapters: ChapterId[]) {
  const catalog = CATALOGS.find((c) => c.id === catalogId)!;
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    type: 'object',
    required: ['title', 'product', 'author', 'report_date', 'catalog', 'chapters'],
    properties: {
      title: { type: 'string', minLength: 1 },
      product: {
        type: 'object',
        required: ['name'],
        properties: {
          name: { type: 'string', minLength: 1 },
          version: { type: 'string' },
          description: { type: 'string' },
        },
      },
      author: { ...contact, required: ['name', 'email'] },
      vendor: contact,
      report_date: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$' },
      last_modified_date: { type: 'string' },
      version: { type: 'integer' },
      notes: { type: 'string' },
      evaluation_methods_used: { type: 'string' },
      legal_disclaimer: { type: 'string' },
      license: { type: 'string' },
      catalog: { const: catalogId },
      chapters: {
        type: 'object',
        required: chapters,
        additionalProperties: false,
        properties: Object.fromEntries(
          chapters.map((id) => [id, chapter(catalog.chapters[id].criteria.map((c) => c.num))]),
        ),
      },
    },
  };
}
