import { useMutation } from '@tanstack/react-query';
import type { ApiDashboardParameter, ApiRenderBody } from '../api/types.ts';
import { downloadBlob } from '../app/download.ts';
import { messageOf } from '../data/errors.ts';
import { renderDashboardFile } from './api.ts';
import { useFocusOnOpen } from './useFocusOnOpen.ts';

type Format = ApiRenderBody['format'];
const NAMES: Record<Format, string> = { png: 'PNG', pdf: 'PDF' };

/**
 * The dashboard as a file to keep or send (Metabase's "Export as PDF"): the service draws it as the person sees it,
 * with the values chosen on the screen, in the browser's time zone. Drawing takes seconds, so the panel says it is
 * drawing, lets neither button start a second one meanwhile, and says why when the service could not.
 */
export function DownloadPanel({
  id,
  parameters,
  values,
}: {
  id: number;
  parameters: readonly ApiDashboardParameter[];
  values: Record<string, string>;
}) {
  const heading = useFocusOnOpen('download');
  // Only the dashboard's own parameters: an address may carry other `var-` values, which the service would refuse.
  const chosen = Object.fromEntries(Object.entries(values).filter(([k]) => parameters.some((p) => p.name === k)));
  const draw = useMutation({
    mutationFn: (format: Format) =>
      renderDashboardFile(id, {
        format,
        parameters: chosen,
        timezone: Intl.DateTimeFormat().resolvedOptions().timeZone,
      }),
    onSuccess: ({ blob, filename }) => downloadBlob(filename, blob),
  });
  const format = draw.variables;
  const said = draw.isPending
    ? `Drawing the ${NAMES[format!]}… This can take up to a minute.`
    : draw.isSuccess
      ? `Downloaded ${draw.data.filename}.`
      : '';
  return (
    <section className="panel" aria-labelledby="download-h" aria-busy={draw.isPending}>
      <h2 id="download-h" ref={heading} tabIndex={-1}>
        Save as PNG or PDF
      </h2>
      <p className="hint">
        A picture of the dashboard as you see it now, with the values chosen on this screen: a PNG image, or a PDF whose
        pages break between widgets.
      </p>
      <div className="actions">
        {(['png', 'pdf'] as const).map((f) => (
          // aria-disabled, not disabled: the button pressed keeps the focus while the file is drawn.
          <button
            key={f}
            type="button"
            className="secondary"
            aria-disabled={draw.isPending}
            onClick={() => {
              if (!draw.isPending) draw.mutate(f);
            }}
          >
            Download {NAMES[f]}
          </button>
        ))}
      </div>
      <p role="status" className="status">
        {said}
      </p>
      <div role="alert" className="error">
        {draw.error ? `The ${NAMES[format!]} could not be made: ${messageOf(draw.error)}.` : ''}
      </div>
    </section>
  );
}
