import { AjvCompiler } from '@fastify/ajv-compiler';
import type { BuildCompilerFromPool, ValidatorFactory } from '@fastify/ajv-compiler';

type Options = NonNullable<Parameters<BuildCompilerFromPool>[1]>;
/** What Fastify passes to a validator compiler at run time (the package's types describe it as a bare schema). */
type Route = { schema: unknown; method: string; url: string; httpPart: string };
type Compile = (route: Route) => unknown;

/** Ajv options every part of a request shares (coercion is set per part below). */
export const ajvOptions = { removeAdditional: false, useDefaults: true } as const;

/**
 * Fastify's validator compiler with coercion chosen by the part of the request.
 *
 * The URL's query and path parameters and the headers arrive as text, so `?limit=5` must satisfy an
 * integer schema, and a parameter given once must satisfy an array schema (`coerceTypes: 'array'`).
 * A JSON body carries its own types: `{"limit":"5"}` is a client's mistake and gets a 400, not a
 * silently converted number, so bodies are validated with no coercion at all. (Form bodies are text
 * too; the platform's form routes (identity's pages) take only strings.)
 *
 * Both compilers come from Fastify's own `@fastify/ajv-compiler`, so formats, shared schemas added
 * with `addSchema` and the compiler cache behave as with Fastify's default.
 */
export function partAwareValidator(): ValidatorFactory {
  const coercingPool = AjvCompiler();
  const strictPool = AjvCompiler();
  const build = (externalSchemas: Parameters<BuildCompilerFromPool>[0], options?: Options): Compile => {
    const withCoercion = (coerceTypes: 'array' | false): Options =>
      ({ ...options, customOptions: { ...options?.customOptions, ...ajvOptions, coerceTypes } }) as Options;
    const coercing = coercingPool(externalSchemas, withCoercion('array')) as unknown as Compile;
    const strict = strictPool(externalSchemas, withCoercion(false)) as unknown as Compile;
    return (route) => (route.httpPart === 'body' ? strict : coercing)(route);
  };
  return build as unknown as ValidatorFactory;
}
