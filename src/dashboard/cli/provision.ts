import { CommandFailure, str, type Command } from '../../kit/cli-runner.ts';
import { readProvisioningDir, type ProvisioningFileContent } from '../provision/files.ts';
import { ProvisioningError } from '../provision/format.ts';
import { noTenantYet } from '../provision/no-tenant.ts';
import { provision, type ProvisionResult } from '../provision/run.ts';
import type { CommandDeps } from './deps.ts';

export function provisionCommand({ config, withDatabase }: CommandDeps): Command {
  return {
    path: ['provision'],
    synopsis: '[--tenant SLUG] [--dir DIR] [--no-platform]',
    summary: 'add the platform data sources and starter dashboards, and apply provisioning files (safe to repeat)',
    details: [
      '--tenant SLUG    tenant for the platform data and files without `tenant` (default: the first tenant)',
      '--dir DIR        folder of YAML/JSON provisioning files (default: DASHBOARD_PROVISIONING_DIR)',
      '--no-platform    only the files: no data sources over the ingest and audit tables',
      'The platform data needs the ingest and audit services on PostgreSQL (DATABASE_URL); on embedded',
      'storage it is skipped with the reason. Existing platform data is left as it is; files are applied',
      'so the database matches them. Nothing changes when nothing differs.',
    ],
    options: { tenant: { type: 'string' }, dir: { type: 'string' }, 'no-platform': { type: 'boolean' } },
    paths: ['dir'],
    run: async ({ values, result }) => {
      const dir = str(values, 'dir') ?? config.provisioningDir;
      const platform = values['no-platform'] !== true;
      let files: ProvisioningFileContent[];
      try {
        files = dir ? readProvisioningDir(dir) : [];
      } catch (err) {
        asCommandFailure(err);
      }
      if (!platform && !files.length)
        throw new CommandFailure(
          dir
            ? `no .yaml, .yml or .json file in ${dir}`
            : 'nothing to do: --no-platform without --dir or DASHBOARD_PROVISIONING_DIR',
        );
      return withDatabase(async (db) => {
        const r = await provision(db, config, { platform, files, tenant: str(values, 'tenant') }).catch(
          asCommandFailure,
        );
        if (!r.tenant && !r.files.length) throw new CommandFailure(noTenantYet(config));
        if (platform && !r.platform.applied && !files.length)
          throw new CommandFailure(`the platform data is not available: ${r.platform.skipped.join('; ')}`);
        result(r, reportLines(r));
      });
    },
  };
}

/** A provisioning file's problem is the command's failure, said as it is. */
function asCommandFailure(err: unknown): never {
  throw err instanceof ProvisioningError ? new CommandFailure(err.message) : err;
}

/** One line per data source and dashboard: what was done with it, from where, into which tenant. */
function reportLines(r: ProvisionResult): string[] {
  const lines: string[] = [];
  const outcome = (what: string, items: { slug: string; outcome: string }[], where: string) => {
    for (const i of items) lines.push(`${what} ${i.slug} (${where}): ${i.outcome}`);
  };
  if (r.platform.report) {
    outcome('data source', r.platform.report.dataSources, `platform, ${r.tenant!.slug}`);
    outcome('dashboard', r.platform.report.dashboards, `platform, ${r.tenant!.slug}`);
  }
  for (const s of r.platform.skipped) lines.push(`skipped ${s}`);
  for (const f of r.files) {
    outcome('data source', f.report.dataSources, `${f.name}, ${f.tenant}`);
    outcome('dashboard', f.report.dashboards, `${f.name}, ${f.tenant}`);
  }
  for (const p of r.pending) lines.push(`waiting ${p}: no tenant exists yet`);
  return lines;
}
