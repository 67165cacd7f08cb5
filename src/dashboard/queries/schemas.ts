import { Type } from 'typebox';
import { Timestamp } from '../schemas.ts';

/** A saved query as answered (Document 1's request fields plus who made it and when). */
export const SavedQuery = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  description: Type.Union([Type.String(), Type.Null()]),
  dataSourceId: Type.Integer(),
  query: Type.String(),
  createdBy: Type.Union([Type.Integer(), Type.Null()]),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
