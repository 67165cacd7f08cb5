import { Type, type TNull, type TString } from 'typebox';

/**
 * The response schemas of a page route for its status codes: an HTML page for each, but a 303 redirect's empty body.
 * One place for what every page route's OpenAPI says it answers.
 */
export function htmlAnswers<C extends number>(...codes: C[]): Record<C, TString | TNull> {
  return Object.fromEntries(codes.map((c) => [c, c === 303 ? Type.Null() : Type.String()])) as Record<
    C,
    TString | TNull
  >;
}

/** The notice a page shows after a form, named by its `done` query parameter: one of `notices`' values, or none. */
export function noticeOf<N extends Record<string, string>>(
  notices: N,
): (done: string | undefined) => N[keyof N] | undefined {
  return (done) => (done !== undefined && Object.hasOwn(notices, done) ? notices[done as keyof N] : undefined);
}
