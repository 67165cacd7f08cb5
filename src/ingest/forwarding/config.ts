import { bool, int, ConfigError, type ConfigOf } from '../../kit/config.ts';
import { allowHostsVariable } from '../../kit/outbound/config.ts';

/**
 * The forwarding variables, spread into the ingest service's spec by core's config.ts.
 * Durations are in milliseconds so tests can use short ones; the documented defaults are the production ones.
 */
export const forwardingVariables = {
  forwardingEnabled: bool('INGEST_FORWARDING_ENABLED', {
    default: false,
    doc: 'Global switch: when true this instance delivers queued events to the enabled destinations.',
  }),
  forwardingPollMs: int('INGEST_FORWARDING_POLL_MS', {
    default: 500,
    min: 10,
    max: 60_000,
    doc: 'How often an idle delivery worker looks for due outbox entries.',
  }),
  forwardingTimeoutMs: int('INGEST_FORWARDING_TIMEOUT_MS', {
    default: 10_000,
    min: 100,
    max: 300_000,
    doc: 'Time limit of one HTTP call to a destination (connecting, sending and reading the answer).',
  }),
  forwardingLeaseMs: int('INGEST_FORWARDING_LEASE_MS', {
    default: 60_000,
    min: 1_000,
    max: 3_600_000,
    doc: 'How long a claimed batch stays reserved for the instance sending it; must be at least twice INGEST_FORWARDING_TIMEOUT_MS.',
  }),
  forwardingMaxAttempts: int('INGEST_FORWARDING_MAX_ATTEMPTS', {
    default: 10,
    min: 1,
    max: 1_000,
    doc: 'Attempts an event must have had before a failure can move it to the dead letters (together with INGEST_FORWARDING_DEAD_LETTER_AFTER_MS).',
  }),
  forwardingDeadLetterAfterMs: int('INGEST_FORWARDING_DEAD_LETTER_AFTER_MS', {
    default: 6 * 3_600_000,
    min: 0,
    max: 30 * 86_400_000,
    doc: 'Time since an event first failed that must have passed before a failure can move it to the dead letters (together with INGEST_FORWARDING_MAX_ATTEMPTS).',
  }),
  forwardingRetryBaseMs: int('INGEST_FORWARDING_RETRY_BASE_MS', {
    default: 1_000,
    min: 1,
    max: 3_600_000,
    doc: 'First retry delay; it doubles with each attempt (with jitter) up to INGEST_FORWARDING_RETRY_MAX_MS. Counted per event (its own attempts) and per destination (its consecutive failed rounds, which pause it).',
  }),
  forwardingRetryMaxMs: int('INGEST_FORWARDING_RETRY_MAX_MS', {
    default: 600_000,
    min: 1,
    max: 86_400_000,
    doc: 'Longest delay between two attempts, unless a destination asks for longer with Retry-After.',
  }),
  forwardingMaxParallel: int('INGEST_FORWARDING_MAX_PARALLEL', {
    default: 16,
    min: 1,
    max: 1_000,
    doc: 'Destinations one instance delivers to at the same time, each in its own loop so a slow one holds only its own.',
  }),
  destinationAllowHosts: allowHostsVariable(
    'INGEST_DESTINATION_ALLOW_HOSTS',
    'event forwarding (deliveries, retries and test sends of destinations)',
  ),
};

export type ForwardingConfig = ConfigOf<typeof forwardingVariables>;

/** Checks between variables that a single parser cannot see. */
export function checkForwardingConfig(config: ForwardingConfig): void {
  if (config.forwardingLeaseMs < 2 * config.forwardingTimeoutMs) {
    throw new ConfigError(
      'INGEST_FORWARDING_LEASE_MS',
      `INGEST_FORWARDING_LEASE_MS (${config.forwardingLeaseMs}) must be at least twice INGEST_FORWARDING_TIMEOUT_MS (${config.forwardingTimeoutMs}), so a batch is never claimed by another instance while its request may still be in flight`,
    );
  }
  if (config.forwardingRetryMaxMs < config.forwardingRetryBaseMs) {
    throw new ConfigError(
      'INGEST_FORWARDING_RETRY_MAX_MS',
      `INGEST_FORWARDING_RETRY_MAX_MS (${config.forwardingRetryMaxMs}) must not be below INGEST_FORWARDING_RETRY_BASE_MS (${config.forwardingRetryBaseMs})`,
    );
  }
}
