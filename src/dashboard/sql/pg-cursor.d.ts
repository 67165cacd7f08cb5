// pg-cursor ships no type declarations; the postgres driver uses this much of it.
declare module 'pg-cursor' {
  import type { FieldDef, Submittable } from 'pg';
  interface CursorConfig {
    types?: { getTypeParser(oid: number, format?: string): (value: string) => unknown };
  }
  export default class Cursor implements Submittable {
    constructor(text: string, values?: unknown[], config?: CursorConfig);
    submit: Submittable['submit'];
    read(rows: number): Promise<Record<string, unknown>[]>;
    close(): Promise<void>;
    _result: { fields: FieldDef[] };
  }
}
