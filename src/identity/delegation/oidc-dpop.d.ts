// oidc-provider 9 validates DPoP proofs only inside its own grants; a registered grant reaches the same code through its
// module (the package has no exports map, and the version is pinned). These are the two functions the exchange uses.
declare module 'oidc-provider/lib/helpers/validate_dpop.js' {
  import type { KoaContextWithOIDC, Provider } from 'oidc-provider';
  export interface DpopResult {
    thumbprint: string;
    jti: string;
    iat: number;
  }
  export default function validateDpop(
    provider: Provider,
    ctx: KoaContextWithOIDC,
    accessToken?: string,
  ): Promise<DpopResult | undefined>;
  export function checkDpopReplay(
    provider: Provider,
    ctx: KoaContextWithOIDC,
    dPoP: DpopResult,
    clientId: string,
    ErrorClass?: unknown,
  ): Promise<void>;
}
