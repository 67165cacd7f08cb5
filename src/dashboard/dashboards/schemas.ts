import { Type } from 'typebox';
import { Timestamp } from '../schemas.ts';
import { Definition } from './definition.ts';

/** Dashboards as answered: a list item, the full dashboard with its definition, a version (shared with the web app's types). */
export const Summary = Type.Object({
  id: Type.Integer(),
  slug: Type.String(),
  title: Type.String(),
  description: Type.Optional(Type.String()),
  version: Type.Integer(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export const Full = Type.Object({ ...Summary.properties, definition: Definition });
export const Created = Type.Object({
  id: Type.Integer(),
  slug: Type.String(),
  title: Type.String(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export const VersionSummary = Type.Object({
  version: Type.Integer(),
  slug: Type.String(),
  title: Type.String(),
  createdBy: Type.Union([Type.Integer(), Type.Null()]),
  createdAt: Timestamp,
  restoredFrom: Type.Union([Type.Integer(), Type.Null()]),
});
