import { lazyPackage } from '../../kit/lazy-package.ts';
import type { OpenAcr } from './report.ts';

const yaml = lazyPackage<typeof import('yaml')>('yaml');

export type OpenAcrFormat = 'yaml' | 'json';

export const CONTENT_TYPES: Record<OpenAcrFormat, string> = {
  yaml: 'application/yaml; charset=utf-8',
  json: 'application/json; charset=utf-8',
};

/**
 * YAML as GSA's OpenACR files are written, with `report_date` double-quoted: YAML 1.1 readers (PyYAML, and
 * js-yaml's default schema before v4) would otherwise turn an unquoted date into a date object.
 */
export function toYaml(report: OpenAcr): string {
  const { Document, Scalar } = yaml();
  const doc = new Document(report);
  const node = doc.get('report_date', true);
  if (node instanceof Scalar) node.type = Scalar.QUOTE_DOUBLE;
  return doc.toString({ lineWidth: 0 });
}

export function serializeOpenAcr(report: OpenAcr, format: OpenAcrFormat): string {
  return format === 'json' ? `${JSON.stringify(report, null, 2)}\n` : toYaml(report);
}
