// oidc-provider ships no type declarations; the service uses it through the narrow shapes in provider.ts.
declare module 'oidc-provider' {
  const Provider: any;
  export default Provider;
  export const errors: any;
  export const interactionPolicy: any;
}
