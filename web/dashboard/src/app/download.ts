import type { ApiQueryResult } from '../api/types.ts';
import { csvName, resultCsv } from './csv.ts';

/** Saves text as a file through the browser's own download (an object URL, released once the click is handled). */
export function downloadFile(filename: string, content: string, type: string): void {
  downloadBlob(filename, new Blob([content], { type }));
}

/** Saves a file already read (a report fetched with a token) through the browser's own download. */
export function downloadBlob(filename: string, blob: Blob): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 0);
}

export const downloadJson = (filename: string, value: unknown): void =>
  downloadFile(filename, `${JSON.stringify(value, null, 2)}\n`, 'application/json');

/** A result as a CSV file; a byte order mark first, so Excel reads the file as UTF-8. */
export const downloadCsv = (title: string, result: ApiQueryResult): void =>
  downloadFile(csvName(title), `\uFEFF${resultCsv(result)}\r\n`, 'text/csv;charset=utf-8');
