// Moved to the toolkit, where identity's social login uses the same providers.
export * from '../../kit/upstream-login/oidc.ts';
