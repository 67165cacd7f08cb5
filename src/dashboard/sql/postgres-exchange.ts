import pg from 'pg';

/** One statement of an exchange, run through the extended protocol (Parse, Bind, Describe, Execute). */
export interface Step {
  text: string;
  values?: unknown[] | undefined;
  /** How many rows the server sends at most (Execute's row limit); the rest are never sent. Unset: all of them. */
  maxRows?: number | undefined;
}

export interface StepResult {
  fields: pg.FieldDef[];
  rows: Record<string, unknown>[];
}

export interface ExchangeResult {
  /** One per step, in order; a step that did not run (an earlier one failed) has none. */
  steps: StepResult[];
  /** The first error: the server skipped every step after it. */
  error?: Error | undefined;
}

/** The type parsers rows are read with (pg's own when unset). */
export interface TypeParsers {
  getTypeParser(oid: number, format?: string): (value: string) => unknown;
}

/** The part of pg's Result (lib/result.js) used here; its published types leave these methods out. */
interface RowReader {
  fields: pg.FieldDef[];
  rows: Record<string, unknown>[];
  addFields(fields: pg.FieldDef[]): void;
  parseRow(values: unknown[]): Record<string, unknown>;
}
const ResultClass = pg.Result as unknown as new (
  rowMode: string | undefined,
  types: TypeParsers | undefined,
) => RowReader;

interface Wire {
  stream: { cork?: () => void; uncork?: () => void };
  parse(m: { text: string }): void;
  bind(m: { portal: string; statement: string; values: unknown[] }): void;
  describe(m: { type: 'P'; name: string }): void;
  execute(m: { portal: string; rows?: number | undefined }): void;
  sync(): void;
  sendCopyFail(message: string): void;
}

const COPY_REFUSED = 'COPY FROM STDIN is not supported: there is no data to send';

const prepareValue = (pg as unknown as { utils: { prepareValue: (v: unknown) => unknown } }).utils.prepareValue;

/**
 * Several statements written to the server at once and answered at once: one round trip, one Sync, so one
 * transaction status at the end. pg's Client sends a query only once the previous one is answered; this sends the
 * whole list in one write, which the protocol allows (the server runs the messages in order and, after an error,
 * skips to the Sync). A step's row limit leaves its portal suspended, never read further: the transaction it
 * belongs to drops it (an implicit one at the Sync, an explicit one at its COMMIT or ROLLBACK).
 *
 * The steps are built when the exchange is sent, not when it is queued, so they can depend on the transaction status
 * the previous exchange ended with (`client.getTransactionStatus()`).
 */
export class Exchange implements pg.Submittable {
  private readonly plan: () => Step[];
  private readonly types: TypeParsers | undefined;
  private readonly results: StepResult[] = [];
  private current: RowReader | undefined;
  private copyRefused = false;
  private settle: ((r: ExchangeResult) => void) | undefined;
  readonly done: Promise<ExchangeResult>;

  constructor(plan: () => Step[], types?: TypeParsers) {
    this.plan = plan;
    this.types = types;
    this.done = new Promise((resolve) => {
      this.settle = resolve;
    });
  }

  /** Returns an error, as pg's own queries do, when a value cannot be sent: nothing is written then. */
  submit(connection: pg.Connection): Error | undefined {
    const wire = connection as unknown as Wire;
    const steps = this.plan();
    let values: unknown[][];
    try {
      // Converted before anything is written: a throw half way would leave the server waiting for a Sync.
      values = steps.map((step) => (step.values ?? []).map(prepareValue));
    } catch (err) {
      return err instanceof Error ? err : new Error(String(err));
    }
    // Corked so the messages leave in one write, as pg does for a query of its own.
    wire.stream.cork?.();
    try {
      for (const [i, step] of steps.entries()) {
        wire.parse({ text: step.text });
        wire.bind({ portal: '', statement: '', values: values[i]! });
        wire.describe({ type: 'P', name: '' });
        wire.execute({ portal: '', rows: step.maxRows });
      }
      wire.sync();
    } finally {
      wire.stream.uncork?.();
    }
    return undefined;
  }

  handleRowDescription(msg: { fields: pg.FieldDef[] }): void {
    this.step().addFields(msg.fields);
  }

  handleDataRow(msg: { fields: unknown[] }): void {
    const result = this.step();
    result.rows.push(result.parseRow(msg.fields));
  }

  /** The step's row limit was reached: its rows are all here, the rest stay unsent. */
  handlePortalSuspended(): void {
    this.endStep();
  }

  handleCommandComplete(): void {
    this.endStep();
  }

  handleEmptyQuery(): void {
    this.endStep();
  }

  handleError(err: Error): void {
    // The server reports the refusal as a cancel (57014); it is the statement that is not supported, no timeout.
    this.finish(this.copyRefused ? new Error(COPY_REFUSED) : err);
  }

  handleReadyForQuery(): void {
    this.finish(undefined);
  }

  /**
   * COPY FROM STDIN has no data to read here: refused, which ends the statement with an error. The server ignored
   * the exchange's Sync while it waited for data (the protocol says so), and skips to a Sync after the error: one
   * more is sent, which brings the one ReadyForQuery the exchange waits for.
   */
  handleCopyInResponse(connection: pg.Connection): void {
    const wire = connection as unknown as Wire;
    wire.sendCopyFail(COPY_REFUSED);
    wire.sync();
    this.copyRefused = true;
  }

  handleCopyData(): void {}

  private step(): RowReader {
    this.current ??= new ResultClass(undefined, this.types);
    return this.current;
  }

  private endStep(): void {
    const r = this.step();
    this.results.push({ fields: r.fields, rows: r.rows });
    this.current = undefined;
  }

  private finish(error: Error | undefined): void {
    const settle = this.settle;
    this.settle = undefined;
    settle?.({ steps: this.results, error });
  }
}

/** Sends an exchange on a client and waits for its answer. */
export function exchange(client: pg.ClientBase, plan: () => Step[], types?: TypeParsers): Promise<ExchangeResult> {
  const x = new Exchange(plan, types);
  client.query(x);
  return x.done;
}
