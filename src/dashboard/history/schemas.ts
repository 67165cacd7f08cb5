import { Type } from 'typebox';
import { Timestamp } from '../../kit/schemas.ts';
import { HISTORY_KEPT } from './store.ts';

/** One run of the person's SQL editor, as it can be opened again: the source, the text and the values it ran with. */
export const HistoryItem = Type.Object({
  id: Type.Integer(),
  dataSourceId: Type.Integer(),
  query: Type.String(),
  params: Type.Record(Type.String(), Type.Unknown()),
  rowCount: Type.Union([Type.Integer(), Type.Null()], { description: 'null when the run failed' }),
  executionTimeMs: Type.Union([Type.Number(), Type.Null()]),
  error: Type.Union([Type.String(), Type.Null()], { description: 'the error code of a failed run' }),
  ranAt: Timestamp,
});

export const HistoryQuery = Type.Object(
  {
    limit: Type.Integer({
      minimum: 1,
      maximum: HISTORY_KEPT,
      default: 20,
      description: `most runs answered (the history keeps the last ${HISTORY_KEPT})`,
    }),
  },
  { additionalProperties: false },
);
