import type { MergedUrl, MergeReason } from '../result/types.ts';

/** What tells one page of a crawl from another: its URLs, its canonical URL and its document. */
export interface PageIdentity {
  /** The URL the crawl asked for (found as a link, in a sitemap, or the start URL), normalised. */
  requestedUrl: string;
  /** Where it landed after redirects, normalised. */
  url: string;
  /** Its `<link rel="canonical">` when that names a page of the same site, normalised; else null. */
  canonical: string | null;
  /** A digest of its document once settled; null for a page that was not audited. */
  fingerprint: string | null;
  /** False for a page that could not be audited: only its URLs then make another page the same. */
  audited: boolean;
}

/**
 * The pages a crawl recorded, and every way of reaching each: a found page that is one of them again — the same
 * URL after redirects (`/old` to `/contrast`), a URL that a recorded page names as canonical or a page naming a
 * recorded one as canonical, or the same document under another URL (`/` and `/index.html`) — is merged into it,
 * so it is audited and counted once. The first page found in crawl order is the one kept.
 */
export class SamePages {
  readonly #urls = new Map<string, { page: number; via: 'url' | 'canonical' }>();
  readonly #documents = new Map<string, number>();
  readonly #merged = new Map<number, MergedUrl[]>();
  readonly #audited = new Set<number>();

  /** The recorded page (its index in the result) this one is, and why; undefined for a new page. */
  match(id: PageIdentity): { page: number; reason: MergeReason } | undefined {
    for (const url of [id.url, id.requestedUrl]) {
      const hit = this.#urls.get(url);
      if (hit) return { page: hit.page, reason: hit.via === 'canonical' ? 'canonical' : 'same-url' };
    }
    // A canonical URL that failed (a 404) is no reason to drop a page that could be audited.
    const named = id.canonical === null ? undefined : this.#urls.get(id.canonical);
    if (named && this.#audited.has(named.page)) return { page: named.page, reason: 'canonical' };
    const same = id.fingerprint === null ? undefined : this.#documents.get(id.fingerprint);
    if (same !== undefined) return { page: same, reason: 'same-content' };
    return undefined;
  }

  /** Whether a URL is already known as one of the recorded pages, so visiting it can only find that page again. */
  knows(url: string): boolean {
    return this.#urls.has(url);
  }

  /** A new page, recorded at `page` in the result. */
  record(id: PageIdentity, page: number): void {
    if (id.audited) this.#audited.add(page);
    for (const url of [id.url, id.requestedUrl]) if (!this.#urls.has(url)) this.#urls.set(url, { page, via: 'url' });
    if (id.canonical !== null && !this.#urls.has(id.canonical))
      this.#urls.set(id.canonical, { page, via: 'canonical' });
    if (id.fingerprint !== null && !this.#documents.has(id.fingerprint)) this.#documents.set(id.fingerprint, page);
  }

  /** A found URL that turned out to be the recorded `page`. */
  merge(page: number, url: string, reason: MergeReason): void {
    const list = this.#merged.get(page) ?? [];
    if (!list.some((m) => m.url === url)) list.push({ url, reason });
    this.#merged.set(page, list);
  }

  /** The URLs merged into a recorded page, in the order they were found. */
  mergedInto(page: number): MergedUrl[] {
    return this.#merged.get(page) ?? [];
  }
}
