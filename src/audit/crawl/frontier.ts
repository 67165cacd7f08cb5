/** A URL the crawl found, normalised, and the link hops from the start page to it (a sitemap page is one hop). */
export interface Target {
  url: string;
  depth: number;
}

/** The URLs a crawl found, in the order found (so breadth-first), each once. */
export class Frontier {
  readonly #targets: Target[];
  readonly #seen: Set<string>;

  constructor(start: string) {
    this.#targets = [{ url: start, depth: 0 }];
    this.#seen = new Set([start]);
  }

  get length(): number {
    return this.#targets.length;
  }

  at(index: number): Target {
    return this.#targets[index]!;
  }

  /** A URL found at `depth`; one found before is not queued again. */
  add(url: string, depth: number): void {
    if (this.#seen.has(url)) return;
    this.#seen.add(url);
    this.#targets.push({ url, depth });
  }

  /** A URL reached another way (where a visit landed after redirects): found later, it is not queued. */
  see(url: string): void {
    this.#seen.add(url);
  }
}
