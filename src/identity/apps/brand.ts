import { HttpError } from '../../kit/errors.ts';

/** WCAG 2.x relative luminance of an sRGB colour `#rrggbb`. */
function luminance(hex: string): number {
  const channel = (i: number) => {
    const c = Number.parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5);
}

/** WCAG 2.x contrast ratio of two `#rrggbb` colours, from 1 to 21. */
export function contrastRatio(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}

const HEX = /^#[0-9a-fA-F]{6}$/;
/** WCAG 2.2 AA for text (1.4.3). */
const AA_TEXT = 4.5;

/**
 * An app's brand colour, accepted only when the sign-in pages stay readable with it: it becomes the primary buttons'
 * background under white text, and the colour of links and of the secondary buttons' text on the white card, so white
 * against it must reach 4.5:1 (WCAG 2.2 AA, 1.4.3). Answers it lower-cased; 400 saying why otherwise.
 */
export function checkBrandColor(value: string): string {
  if (!HEX.test(value))
    throw new HttpError(400, 'VALIDATION_ERROR', `brand_color must be a colour written #rrggbb, such as #0b57d0`);
  const ratio = contrastRatio(value, '#ffffff');
  if (ratio < AA_TEXT)
    throw new HttpError(
      400,
      'VALIDATION_ERROR',
      `brand_color ${value} gives white text a contrast of ${ratio.toFixed(2)}:1, below the 4.5:1 WCAG AA asks for text: choose a darker colour`,
    );
  return value.toLowerCase();
}
