import { useQuery } from '@tanstack/react-query';
import { messageOf } from '../data/errors.ts';
import { schemaQuery } from '../data/queries.ts';

/** The tables and views of a data source with their columns, as a nested list a screen reader can walk. */
export function SchemaBrowser({ id, name }: { id: number; name: string }) {
  const schema = useQuery(schemaQuery(id));
  const tables = schema.data;
  const error = schema.error && messageOf(schema.error, 'the schema could not be loaded');
  return (
    <section aria-labelledby="schema-title">
      <h2 id="schema-title">Schema of {name}</h2>
      {error && (
        <p role="alert" className="error">
          {error}
        </p>
      )}
      {!tables && !error && <p role="status">Loading the schema…</p>}
      {tables?.length === 0 && <p>No tables or views.</p>}
      <ul className="schema">
        {tables?.map((t) => (
          <li key={`${t.schema}.${t.name}`}>
            <details>
              <summary>
                {t.name}{' '}
                <span className="hint">
                  ({t.type}, {t.columns?.length ?? 0} columns)
                </span>
              </summary>
              <ul>
                {t.columns?.map((c) => (
                  <li key={c.name}>
                    {c.name}{' '}
                    <span className="hint">
                      {c.type}
                      {c.nullable ? '' : ', not null'}
                    </span>
                  </li>
                ))}
              </ul>
            </details>
          </li>
        ))}
      </ul>
    </section>
  );
}
