import type { Regression } from './decide.ts';

export interface SiteRef {
  id: string;
  name: string;
  url: string;
}

/**
 * A notice as Standard Webhooks recommends a payload (`type`, `timestamp`, `data`); the mail says the same in
 * words. `audit.regressed`: a run scored lower or found new serious/critical failures; `audit.test`: "send a test".
 */
export interface NoticePayload {
  type: 'audit.regressed' | 'audit.test';
  timestamp: string;
  data: {
    site: SiteRef;
    run: { id: string; score: number; finishedAt: string | null } | null;
    previousRun: { id: string; score: number } | null;
    scoreDrop: number;
    newFailureCount: number;
    newFailures: Regression['newFailures'];
  };
}

export function regressionPayload(
  site: SiteRef,
  run: { id: string; finishedAt: string | null },
  previousRunId: string,
  found: Regression & { newFailureCount: number },
): NoticePayload {
  return {
    type: 'audit.regressed',
    timestamp: new Date().toISOString(),
    data: {
      site,
      run: { id: run.id, score: found.score, finishedAt: run.finishedAt },
      previousRun: { id: previousRunId, score: found.previousScore },
      scoreDrop: found.scoreDrop,
      newFailureCount: found.newFailureCount,
      newFailures: found.newFailures,
    },
  };
}

export function testPayload(site: SiteRef): NoticePayload {
  return {
    type: 'audit.test',
    timestamp: new Date().toISOString(),
    data: { site, run: null, previousRun: null, scoreDrop: 0, newFailureCount: 0, newFailures: [] },
  };
}

/** The mail of a notice: plain text only, so nothing a site's pages contain is ever rendered as markup. */
export function noticeMail(payload: NoticePayload): { subject: string; text: string } {
  const { site } = payload.data;
  const name = oneLine(site.name);
  if (payload.type === 'audit.test')
    return {
      subject: `Test notice for ${name}`,
      text: `This is a test of the notices of the site "${name}" (${site.url}).\nWhen a run scores lower than the one before, or finds new serious or critical failures, a notice like this one says so.\n`,
    };
  const { run, previousRun, scoreDrop, newFailureCount, newFailures } = payload.data;
  const lines = [`The latest audit of "${name}" (${site.url}) got worse.`, ''];
  if (scoreDrop > 0) lines.push(`Score: ${run?.score} (was ${previousRun?.score}, down ${scoreDrop}).`);
  if (newFailureCount > 0) {
    lines.push(`New serious or critical failures: ${newFailureCount}.`);
    for (const f of newFailures)
      lines.push(`- [${f.impact}] ${f.ruleId}: ${f.summary} (${f.selector} on ${f.pageUrl})`);
    if (newFailureCount > newFailures.length) lines.push(`…and ${newFailureCount - newFailures.length} more.`);
  }
  lines.push('', `Run: ${run?.id}`);
  const what = scoreDrop > 0 ? `score down ${scoreDrop}` : `${newFailureCount} new failures`;
  return { subject: `Accessibility regression on ${name}: ${what}`, text: `${lines.join('\n')}\n` };
}

/** A subject line never carries a line break a name may have smuggled in. */
const oneLine = (text: string) => text.replace(/[\r\n]+/g, ' ');
