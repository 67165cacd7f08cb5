import type { Service } from './kit/service.ts';

/** Every service the `platform` command knows, in start order. A new service adds one line here. */
export const services: Service[] = [];
