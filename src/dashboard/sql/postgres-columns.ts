import type pg from 'pg';
import type { ColumnDescriptor } from './driver.ts';
import type { Step, StepResult } from './postgres-exchange.ts';

// format_type without a modifier gives the base SQL name ("numeric", "character varying"); the modifier goes into
// precision, scale and length. The same lookup answers nullability for table columns.
const DESCRIBE = `SELECT format_type(c.typ, NULL) AS type, a.attnotnull AS not_null
  FROM unnest($1::oid[], $2::oid[], $3::int2[]) WITH ORDINALITY AS c(typ, rel, att, i)
  LEFT JOIN pg_attribute a ON a.attrelid = c.rel AND a.attnum = c.att AND c.rel <> 0
  ORDER BY c.i`;

export function modifiers(oid: number, typmod: number): Pick<ColumnDescriptor, 'precision' | 'scale' | 'length'> {
  if (typmod < 0) return {};
  switch (oid) {
    case 1700:
      return { precision: ((typmod - 4) >> 16) & 0xffff, scale: (typmod - 4) & 0xffff };
    case 1042:
    case 1043:
      return { length: typmod - 4 };
    case 1560:
    case 1562:
      return { length: typmod };
    case 1083:
    case 1114:
    case 1184:
    case 1266:
      return { precision: typmod };
    default:
      return {};
  }
}

/** The catalog lookup for a result's columns, as a step of the exchange that cleans the connection up. */
export function describeStep(fields: pg.FieldDef[]): Step {
  return {
    text: DESCRIBE,
    values: [fields.map((f) => f.dataTypeID), fields.map((f) => f.tableID), fields.map((f) => f.columnID)],
  };
}

type Described = { type?: string; not_null?: boolean | null }[];

export function columnsOf(fields: pg.FieldDef[], described: StepResult | undefined): ColumnDescriptor[] {
  const rows = (described?.rows ?? []) as Described;
  return fields.map((f, i) => ({
    name: f.name,
    type: rows[i]?.type ?? String(f.dataTypeID),
    nullable: rows[i]?.not_null !== true,
    ...modifiers(f.dataTypeID, f.dataTypeModifier),
  }));
}

/** Past this many entries a source's cache starts again: a source queried over many tables or types stays bounded. */
const MAX_ENTRIES = 10_000;

/**
 * What the column lookup said, per source: a type's name by OID, a table column's NOT NULL by table OID and column
 * number. A query whose columns are all known answers without waiting for the lookup; the lookup still runs, in the
 * clean-up after the answer, and what it says replaces what was known. So a type renamed, or a column's NOT NULL
 * set or dropped, shows from the query after the first one that follows the change (docs/decisions.md). A table or
 * type dropped and made again has a new OID: never confused with the old one. A source's connection settings changed
 * make a new pool, with an empty cache.
 */
export class ColumnCache {
  private readonly types = new Map<number, string>();
  private readonly notNull = new Map<string, boolean>();

  /** The result's column descriptors, when every one is known. */
  known(fields: pg.FieldDef[]): ColumnDescriptor[] | undefined {
    const out: ColumnDescriptor[] = [];
    for (const f of fields) {
      const type = this.types.get(f.dataTypeID);
      if (type === undefined) return undefined;
      let nullable = true;
      if (f.tableID !== 0) {
        const nn = this.notNull.get(`${f.tableID}:${f.columnID}`);
        if (nn === undefined) return undefined;
        nullable = !nn;
      }
      out.push({ name: f.name, type, nullable, ...modifiers(f.dataTypeID, f.dataTypeModifier) });
    }
    return out;
  }

  /** Records what the lookup for `fields` answered. */
  learn(fields: pg.FieldDef[], described: StepResult | undefined): void {
    const rows = (described?.rows ?? []) as Described;
    if (rows.length !== fields.length) return;
    if (this.types.size + this.notNull.size + 2 * fields.length > MAX_ENTRIES) {
      this.types.clear();
      this.notNull.clear();
    }
    for (const [i, f] of fields.entries()) {
      const r = rows[i]!;
      if (typeof r.type === 'string') this.types.set(f.dataTypeID, r.type);
      if (f.tableID !== 0) this.notNull.set(`${f.tableID}:${f.columnID}`, r.not_null === true);
    }
  }
}
