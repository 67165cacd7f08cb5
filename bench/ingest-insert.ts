/**
 * PostgreSQL's own cost per stored event, without HTTP or the service around it: the group commit's INSERT
 * (src/ingest/events/committer.ts; with ON CONFLICT DO NOTHING, as for a group holding a re-sent event, but in the
 * `plain` variant, the committer's first attempt until the third round of issue 14, and `COPY` in binary in the `copy` variant, its first
 * attempt since) of BENCH_GROUPS groups of 5,000 events of the ingest benchmark's shape, on one
 * connection, into a fresh database migrated like `platform start ingest` does, then altered by each variant.
 * Prints per variant the CPU of PostgreSQL per row (the backend alone, and every PostgreSQL process: WAL writer,
 * checkpointer...), the wall time per group (commit included), WAL bytes and the table's size (indexes included)
 * per row. Variants run alternately, BENCH_ROUNDS rounds, each on its own database after a CHECKPOINT.
 *
 *   npm run bench:ingest-insert [variant ...]     (BENCH_GROUPS=40 BENCH_ROUNDS=2 BENCH_POSTGRES_URL=postgres://...)
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { openDatabase, type Database } from '../src/kit/db.ts';
import { migrate } from '../src/kit/migrations.ts';
import { INGEST_MIGRATIONS } from '../src/ingest/app.ts';
import {
  COPY_EVENTS,
  copyParameters,
  INSERT_EVENTS,
  INSERT_EVENTS_PLAIN,
  insertParameters,
} from '../src/ingest/events/committer.ts';
import { validateBatch, type PreparedEvents } from '../src/ingest/events/validate.ts';
import { eventTemplates } from './support/events.ts';
import { cpuSeconds, postgresCpuSeconds, postgresCpuSince } from './support/proc.ts';

const GROUPS = Number(process.env.BENCH_GROUPS ?? 40);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const WARMUP_GROUPS = 2;
const REQUESTS_PER_GROUP = 5;
const PROJECT = 'bench';

/** SQL run on the migrated schema before measuring: each a candidate change of the events table. */
const VARIANTS: Record<string, string> = {
  // As migrated, inserted with ON CONFLICT DO NOTHING (every group commit's statement before the second round of issue 14).
  base: '',
  // Byte order instead of the database's collation in the dedup index (memcmp instead of strcoll).
  collate_c: `ALTER TABLE events ALTER COLUMN project_id TYPE text COLLATE "C", ALTER COLUMN event_id TYPE text COLLATE "C";`,
  // Only event_id: project_id is compared with projects.id and destinations.project_id, whose collation it must share.
  event_id_c: `ALTER TABLE events ALTER COLUMN event_id TYPE text COLLATE "C";`,
  // The same table, inserted into without ON CONFLICT: the committer's first attempt (there are no duplicates here).
  plain: '',
  // The same, by COPY FROM STDIN in binary (COPY_EVENTS): the committer's first attempt since the third round of issue 14.
  copy: '',
  // COPY with event_id compared byte by byte in the dedup index (memcmp instead of strcoll).
  copy_event_id_c: `ALTER TABLE events ALTER COLUMN event_id TYPE text COLLATE "C";`,
  // COPY into a text body: what the json column's input check costs (a measure only: `body->>'x'` needs json).
  copy_body_text: `ALTER TABLE events ALTER COLUMN body TYPE text;`,
  // COPY without the row id's primary key (dedup needs only the unique index; the outbox and forwarding read by id).
  copy_no_pkey: `ALTER TABLE events DROP CONSTRAINT events_pkey;`,
  // COPY without the statement triggers and their transition table (the outbox, the project check): what they cost.
  copy_no_triggers: `DROP TRIGGER events_enqueue_for_forwarding ON events; DROP TRIGGER events_check_project ON events;`,
  // COPY with only the project check's trigger (the transition table is still captured): what the outbox's join costs.
  copy_no_outbox_trigger: `DROP TRIGGER events_enqueue_for_forwarding ON events;`,
  // COPY with the two statement triggers as one function: the transition table read once for the projects, and
  // joined for the outbox only when one of them has an enabled destination.
  copy_one_trigger: `DROP TRIGGER events_enqueue_for_forwarding ON events; DROP TRIGGER events_check_project ON events;
        CREATE FUNCTION after_events_inserted() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $f$
        DECLARE
          inserted_projects text[];
          missing text;
        BEGIN
          SELECT array_agg(DISTINCT project_id) INTO inserted_projects FROM inserted_events;
          PERFORM 1 FROM projects p WHERE p.id = ANY(inserted_projects) FOR KEY SHARE;
          SELECT x INTO missing FROM unnest(inserted_projects) x WHERE NOT EXISTS (SELECT 1 FROM projects p WHERE p.id = x) LIMIT 1;
          IF missing IS NOT NULL THEN
            RAISE EXCEPTION 'insert into events violates the rule that project % must exist', missing USING ERRCODE = 'foreign_key_violation';
          END IF;
          IF EXISTS (SELECT 1 FROM destinations d WHERE d.project_id = ANY(inserted_projects) AND d.enabled) THEN
            INSERT INTO outbox (destination_id, event_row_id)
            SELECT d.id, n.id FROM inserted_events n JOIN destinations d ON d.project_id = n.project_id AND d.enabled ORDER BY n.id;
          END IF;
          RETURN NULL;
        END;
        $f$;
        CREATE TRIGGER events_after_insert AFTER INSERT ON events REFERENCING NEW TABLE AS inserted_events
          FOR EACH STATEMENT EXECUTE FUNCTION after_events_inserted();`,
  // COPY as before migration 010 (issue 27): without the read API's indexes and its counting trigger.
  copy_no_read: `DROP INDEX events_project_type_time, events_project_session_time, events_project_user_time;
        DROP TRIGGER events_count ON events;`,
  // COPY without the index on user.id read from the json body (each row's body parsed for it).
  copy_no_user_index: 'DROP INDEX events_project_user_time;',
  // COPY without the session index.
  copy_no_session_index: 'DROP INDEX events_project_session_time;',
  // COPY without migration 010's counting trigger (the hourly rollup).
  copy_no_count_trigger: 'DROP TRIGGER events_count ON events;',
  // Issue 33. `copy` is migration 011's table (010's read indexes without the (project, time) one, the `user.id`
  // one without its predicate); this is 010's.
  copy_010: `CREATE INDEX events_project_time ON events (project_id, event_ts DESC, id DESC);
        DROP INDEX events_project_user_time;
        CREATE INDEX events_project_user_time ON events (project_id, (body ->> 'user.id'), event_ts DESC, id DESC)
          WHERE (body ->> 'user.id') IS NOT NULL;`,
  // 011 with 010's (project, time) index: what that index costs.
  copy_time_index: 'CREATE INDEX events_project_time ON events (project_id, event_ts DESC, id DESC);',
  // 011 with 010's predicate on the `user.id` index: the body parsed twice per row (predicate, key) rather than once.
  copy_user_partial: `DROP INDEX events_project_user_time;
        CREATE INDEX events_project_user_time ON events (project_id, (body ->> 'user.id'), event_ts DESC, id DESC)
          WHERE (body ->> 'user.id') IS NOT NULL;`,
  // `user.id` as a stored generated column (parsed once per row, as 011's index does, and stored), indexed as a column.
  copy_user_generated: `ALTER TABLE events ADD COLUMN user_id text GENERATED ALWAYS AS (body ->> 'user.id') STORED;
        DROP INDEX events_project_user_time;
        CREATE INDEX events_project_user_time ON events (project_id, user_id, event_ts DESC, id DESC) WHERE user_id IS NOT NULL;`,
  // The session index as a hash of session_id alone (a session's events sorted after the lookup).
  copy_session_hash: `DROP INDEX events_project_session_time;
        CREATE INDEX events_session_hash ON events USING hash (session_id);`,
  // Partitioned by the day of event.timestamp (the bench's events all fall on one day, so one partition is
  // written). A unique index of a partitioned table must hold the partition key: dedup becomes
  // (project_id, event_id, event_ts). The statement triggers move to the partitioned table.
  by_day: `ALTER TABLE events RENAME TO events_unpartitioned;
        CREATE TABLE events (LIKE events_unpartitioned INCLUDING DEFAULTS, PRIMARY KEY (id, event_ts), UNIQUE (project_id, event_id, event_ts))
          PARTITION BY RANGE (event_ts);
        CREATE TABLE events_2025_03_04 PARTITION OF events FOR VALUES FROM ('2025-03-04') TO ('2025-03-05');
        CREATE TABLE events_default PARTITION OF events DEFAULT;
        CREATE TRIGGER events_enqueue_for_forwarding AFTER INSERT ON events REFERENCING NEW TABLE AS inserted_events
          FOR EACH STATEMENT EXECUTE FUNCTION enqueue_for_forwarding();
        CREATE TRIGGER events_check_project AFTER INSERT ON events REFERENCING NEW TABLE AS inserted_events
          FOR EACH STATEMENT EXECUTE FUNCTION check_inserted_event_projects();`,
};

const BY_DAY_INSERT = INSERT_EVENTS.replace(
  'ON CONFLICT (project_id, event_id)',
  'ON CONFLICT (project_id, event_id, event_ts)',
);
/** Every variant but these inserts with ON CONFLICT DO NOTHING (the committer's statement for a group holding a re-sent event). */
const STATEMENTS: Record<string, string> = { by_day: BY_DAY_INSERT, plain: INSERT_EVENTS_PLAIN };

/** The table with its indexes and TOAST, its partitions' included. */
const SIZE = `SELECT sum(pg_total_relation_size(oid))::int8 AS n FROM pg_class
  WHERE oid = 'events'::regclass OR oid IN (SELECT relid FROM pg_partition_tree('events'))`;

interface Figures {
  backendUsPerRow: number;
  postgresUsPerRow: number;
  msPerGroup: number;
  walBytesPerRow: number;
  sizeBytesPerRow: number;
}

/** One request's prepared events, as the route hands them to the committer, with fresh event ids. */
function prepare(templates: string[], prefix: string): PreparedEvents {
  const events = templates.map((t, i) => JSON.parse(t.replace('@ID@', `${prefix}-${i}`)) as unknown);
  const { prepared, rejections } = validateBatch(events, PROJECT);
  if (rejections.length > 0) throw new Error(`bench events rejected: ${JSON.stringify(rejections[0])}`);
  return prepared;
}

async function measure(adminUrl: string, admin: pg.Client, variant: string): Promise<Figures> {
  const name = `bench_insert_${randomBytes(4).toString('hex')}`;
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  let db: Database | undefined;
  try {
    db = await openDatabase({ url: url.toString(), dataDir: `/tmp/${name}`, schema: 'ingest', poolSize: 1 });
    await migrate(db, INGEST_MIGRATIONS);
    await db.query('INSERT INTO projects (id, name) VALUES ($1, $1)', [PROJECT]);
    if (VARIANTS[variant]) await db.exec(VARIANTS[variant]!);
    const sql = STATEMENTS[variant] ?? INSERT_EVENTS;
    const backend = (await db.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
    const templates = eventTemplates(PROJECT);
    // Parameters are built outside the timed part; only the statement and the COMMIT are timed.
    const copies = variant.startsWith('copy');
    const paramsOf = (parts: PreparedEvents[], count: number) =>
      copies ? copyParameters(parts, count) : insertParameters(parts, count);
    const run = (params: Buffer | Buffer[]) =>
      db!.transaction(
        async (tx) =>
          void (Array.isArray(params) ? await tx.query(sql, params) : await tx.copyFrom!(COPY_EVENTS, params)),
      );
    const insertGroup = async (n: number) => {
      const parts = Array.from({ length: REQUESTS_PER_GROUP }, (_, r) => prepare(templates, `${n}-${r}`));
      const count = parts.reduce((sum, p) => sum + p.count, 0);
      await run(paramsOf(parts, count));
    };
    for (let n = 0; n < WARMUP_GROUPS; n++) await insertGroup(n);
    await admin.query('CHECKPOINT');
    const wal0 = (await db.query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn')).rows[0]!.lsn;
    const pg0 = postgresCpuSeconds();
    const backend0 = cpuSeconds(backend);
    const size0 = (await db.query<{ n: number }>(SIZE)).rows[0]!.n;
    let busy = 0;
    for (let n = WARMUP_GROUPS; n < WARMUP_GROUPS + GROUPS; n++) {
      // Only the INSERT and COMMIT are timed, not the preparation of the events in this process.
      const parts = Array.from({ length: REQUESTS_PER_GROUP }, (_, r) => prepare(templates, `${n}-${r}`));
      const count = parts.reduce((sum, p) => sum + p.count, 0);
      const params = paramsOf(parts, count);
      const started = performance.now();
      await run(params);
      busy += performance.now() - started;
    }
    const postgres = postgresCpuSince(pg0);
    const backendCpu = cpuSeconds(backend) - backend0;
    const rows = GROUPS * REQUESTS_PER_GROUP * templates.length;
    const wal = (await db.query<{ n: number }>('SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), $1)::int8 AS n', [wal0]))
      .rows[0]!.n;
    const size = (await db.query<{ n: number }>(SIZE)).rows[0]!.n;
    return {
      backendUsPerRow: (backendCpu * 1e6) / rows,
      postgresUsPerRow: (postgres * 1e6) / rows,
      msPerGroup: busy / GROUPS,
      walBytesPerRow: wal / rows,
      sizeBytesPerRow: (size - size0) / rows,
    };
  } finally {
    await db?.close();
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  }
}

async function main(): Promise<void> {
  const adminUrl =
    process.env.BENCH_POSTGRES_URL ?? process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const chosen = process.argv.slice(2);
  const variants = chosen.length > 0 ? chosen : Object.keys(VARIANTS);
  for (const v of variants)
    if (!(v in VARIANTS)) throw new Error(`unknown variant ${v}; known: ${Object.keys(VARIANTS).join(', ')}`);
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    console.log(
      `insert benchmark: ${GROUPS} groups of ${REQUESTS_PER_GROUP * 1000} events per variant, ${ROUNDS} rounds, one connection`,
    );
    console.log('variant         backend µs/row  PostgreSQL µs/row  ms/group  WAL B/row  size B/row');
    for (let round = 0; round < ROUNDS; round++) {
      for (const variant of variants) {
        const f = await measure(adminUrl, admin, variant);
        console.log(
          `${variant.padEnd(15)} ${f.backendUsPerRow.toFixed(1).padStart(14)} ${f.postgresUsPerRow.toFixed(1).padStart(18)} ` +
            `${f.msPerGroup.toFixed(0).padStart(9)} ${f.walBytesPerRow.toFixed(0).padStart(10)} ${f.sizeBytesPerRow.toFixed(0).padStart(11)}`,
        );
      }
    }
  } finally {
    await admin.end();
  }
}

await main();
