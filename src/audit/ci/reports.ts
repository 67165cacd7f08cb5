import { writeFileSync } from 'node:fs';
import { CommandFailure } from '../../kit/cli-runner.ts';
import { buildOpenAcr, type OpenAcrDefaults } from '../openacr/report.ts';
import { serializeOpenAcr } from '../openacr/serialize.ts';
import { renderHtmlReport } from '../report/render.ts';
import type { AuditResult } from '../result/types.ts';
import type { GateOutcome } from './gate.ts';
import { toJUnit } from './junit.ts';
import type { ReportFiles } from './plan.ts';
import { toSarif } from './sarif.ts';

/** Writes each report the run names, from the one result; answers the files written, in a fixed order. */
export function writeReports(
  result: AuditResult,
  gate: GateOutcome,
  files: ReportFiles,
  openAcr: OpenAcrDefaults,
): string[] {
  const written: string[] = [];
  const write = (path: string | undefined, content: () => string) => {
    if (!path) return;
    try {
      writeFileSync(path, content());
    } catch (err) {
      throw new CommandFailure(
        `cannot write ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
      );
    }
    written.push(path);
  };
  write(files.result, () => `${JSON.stringify(result, null, 2)}\n`);
  write(files.html, () => renderHtmlReport(result));
  write(files.openacr, () =>
    serializeOpenAcr(buildOpenAcr(result, {}, openAcr), files.openacr!.endsWith('.json') ? 'json' : 'yaml'),
  );
  write(files.junit, () => toJUnit(result, gate));
  write(files.sarif, () => toSarif(result));
  return written;
}
