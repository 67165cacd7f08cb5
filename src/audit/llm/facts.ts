/**
 * What the engine collects from an audited page for LLM assistance: the things axe cannot judge (does an
 * image's alternative text describe it, does a link's text say where it goes, does the title fit the page)
 * need the page's own words. Sizes are capped by the engine (see LLM_FACT_LIMITS).
 */
export interface LlmImageFact {
  /** Absolute URL of the image. */
  src: string;
  /** The alt attribute as written; null when the image has none (axe reports that already). */
  alt: string | null;
  selector: string;
  /** Outer HTML, truncated. */
  html: string;
  /** Nearby text (figure caption, surrounding paragraph), truncated. */
  context: string;
  /** The image itself when the engine could read it from the page (so the provider need not fetch it). */
  data?: { mediaType: 'image/jpeg' | 'image/png' | 'image/gif' | 'image/webp'; base64: string };
}

export interface LlmLinkFact {
  /** Absolute URL the link goes to. */
  href: string;
  /** The link's accessible name as a screen reader would say it. */
  text: string;
  selector: string;
  html: string;
  /** Text of the sentence or list item around the link, truncated. */
  context: string;
}

export interface LlmPageFacts {
  url: string;
  title: string;
  lang: string | null;
  /** The first words of the page's main content. */
  mainText: string;
  images: LlmImageFact[];
  links: LlmLinkFact[];
}

/** Caps the engine applies when collecting facts, and the prompt applies again. */
export const LLM_FACT_LIMITS = {
  images: 20,
  links: 40,
  mainTextChars: 2_000,
  contextChars: 200,
  htmlChars: 300,
  /** Images sent as pictures (the rest are judged from their alt text and context only). */
  imagesSent: 8,
  /** Largest image sent inline, in bytes of base64. */
  imageBase64Bytes: 1_500_000,
} as const;
