import { writeFileSync } from 'node:fs';
import { CommandFailure } from '../../kit/cli-runner.ts';
import { buildOpenAcr, type OpenAcrDefaults } from '../openacr/report.ts';
import { serializeOpenAcr } from '../openacr/serialize.ts';
import { renderHtmlReport } from '../report/render.ts';
import type { AuditResult } from '../result/types.ts';
import type { ReportFiles } from './plan.ts';

/** Writes each report the run names, from the one result; answers the files written, in a fixed order. */
export function writeReports(result: AuditResult, files: ReportFiles, openAcr: OpenAcrDefaults): string[] {
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
  return written;
}
