import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml, YAMLParseError } from 'yaml';
import { checkBundle, ProvisioningError, type ProvisioningBundle } from './format.ts';

export interface ProvisioningFileContent {
  /** The file's name within the folder: how errors and audit records name it. */
  name: string;
  bundle: ProvisioningBundle;
}

const EXTENSIONS = /\.(ya?ml|json)$/i;
const MAX_FILE_BYTES = 5 * 1024 * 1024;

/**
 * The folder's `.yaml`, `.yml` and `.json` files in name order (so an operator can order them with a
 * numeric prefix), each parsed and checked. Other files are ignored, like Grafana's provisioning does.
 * A file that cannot be read or parsed, or breaks the format, is a ProvisioningError naming it.
 */
export function readProvisioningDir(dir: string): ProvisioningFileContent[] {
  let names: string[];
  try {
    if (!statSync(dir).isDirectory())
      throw new ProvisioningError(dir, '', 'is not a folder (DASHBOARD_PROVISIONING_DIR)');
    names = readdirSync(dir)
      .filter((n) => EXTENSIONS.test(n))
      .sort();
  } catch (err) {
    if (err instanceof ProvisioningError) throw err;
    throw new ProvisioningError(
      dir,
      '',
      `cannot read the provisioning folder (DASHBOARD_PROVISIONING_DIR): ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
    );
  }
  return names.map((name) => ({ name, bundle: readProvisioningFile(join(dir, name), name) }));
}

export function readProvisioningFile(path: string, name: string): ProvisioningBundle {
  let text: string;
  try {
    if (statSync(path).size > MAX_FILE_BYTES)
      throw new ProvisioningError(name, '', `is larger than ${MAX_FILE_BYTES / 1024 / 1024} MB`);
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if (err instanceof ProvisioningError) throw err;
    throw new ProvisioningError(
      name,
      '',
      `cannot be read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
    );
  }
  return checkBundle(name, parseText(name, text));
}

function parseText(name: string, text: string): unknown {
  if (/\.json$/i.test(name)) {
    try {
      return JSON.parse(text);
    } catch (err) {
      throw new ProvisioningError(name, '', `is not valid JSON: ${(err as Error).message}`);
    }
  }
  try {
    // One document per file; aliases are capped so a "billion laughs" file cannot exhaust memory.
    return parseYaml(text, { maxAliasCount: 100, prettyErrors: true });
  } catch (err) {
    if (err instanceof YAMLParseError) {
      const line = err.linePos?.[0];
      throw new ProvisioningError(
        name,
        '',
        `is not valid YAML${line ? ` (line ${line.line}, column ${line.col})` : ''}: ${err.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '')}`,
      );
    }
    throw new ProvisioningError(name, '', `is not valid YAML: ${(err as Error).message.split('\n')[0]}`);
  }
}
