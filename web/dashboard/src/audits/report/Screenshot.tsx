/**
 * Only the audit engine's own JPEG data URIs become an image (as in the HTML report, src/audit/report/render.ts): the
 * console's CSP allows `data:` images, and anything else in the field is dropped rather than loaded.
 */
const SHOT = /^data:image\/jpeg;base64,[A-Za-z0-9+/]+={0,2}$/;

/** A deep audit's cropped picture of a failing element, outlined in red, as a `<dt>`/`<dd>` pair of a finding. */
export function Screenshot({ src }: { src: string | undefined }) {
  if (!src || !SHOT.test(src)) return null;
  return (
    <>
      <dt>Screenshot</dt>
      <dd>
        <img className="shot" src={src} alt="The failing element on the page, outlined in red" />
      </dd>
    </>
  );
}
