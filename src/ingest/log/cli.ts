import { once } from 'node:events';
import { CommandFailure, UsageError, str, type Command } from '../../kit/cli-runner.ts';
import type { IngestConfig } from '../config.ts';
import { logEnabled } from './config.ts';

function count(text: string | undefined, name: string, min: number, max: number): number | undefined {
  if (text === undefined) return undefined;
  if (!/^\d+$/.test(text) || Number(text) < min || Number(text) > max)
    throw new UsageError(`--${name} must be a whole number from ${min} to ${max}, got "${text}"`);
  return Number(text);
}

/** `platform ingest loader`: loaders of the durable log in a process of their own, until SIGINT or SIGTERM. */
export function loaderCommands(ctx: { config: IngestConfig; migrations: URL }): Command[] {
  return [
    {
      path: ['loader'],
      synopsis: '[--loaders N] [--port PORT]',
      summary: 'load the durable log (INGEST_JETSTREAM_SERVERS) into PostgreSQL until stopped',
      details: [
        '--loaders N   loaders in this process (default INGEST_JETSTREAM_LOADERS, at least 1)',
        '--port PORT   serve /health, /ready (with the backlog) and /metrics on HOST:PORT (0: any free port)',
        'Any number of loader processes (and ingest processes with INGEST_JETSTREAM_LOADERS) may run at once:',
        'they share one durable consumer. SIGINT or SIGTERM stops it after storing what it took.',
      ],
      options: { loaders: { type: 'string' }, port: { type: 'string' } },
      run: async ({ values, io }) => {
        const loaders = count(str(values, 'loaders'), 'loaders', 1, 64) ?? Math.max(1, ctx.config.jetstreamLoaders);
        const port = count(str(values, 'port'), 'port', 0, 65535);
        if (!logEnabled(ctx.config))
          throw new CommandFailure('INGEST_JETSTREAM_SERVERS is not set: without the log there is nothing to load');
        // Loaded here: the other commands load none of the NATS client.
        const { buildLoaderApp } = await import('./standalone.ts');
        const app = await buildLoaderApp(ctx.config, ctx.migrations, loaders);
        try {
          if (port !== undefined) {
            await app.listen({ host: ctx.config.host, port });
            const address = app.server.address();
            io.out(
              `ingest-loader http://${ctx.config.host}:${typeof address === 'object' && address ? address.port : port}`,
            );
          }
          io.out(
            `loading stream ${ctx.config.jetstreamStream} (consumer ${ctx.config.jetstreamConsumer}) into PostgreSQL with ${loaders} loader${loaders === 1 ? '' : 's'}; SIGINT or SIGTERM stops`,
          );
          const signal = await Promise.race([once(process, 'SIGINT'), once(process, 'SIGTERM')]);
          io.err(`${signal[0] ?? 'signal'}: stopping (storing what was taken)`);
        } finally {
          await app.close();
        }
      },
    },
  ];
}
