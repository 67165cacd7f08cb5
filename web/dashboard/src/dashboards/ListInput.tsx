import { useEffect, useState, type InputHTMLAttributes } from 'react';

const parse = (text: string) =>
  text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

/**
 * A comma-separated list in a text field. The text is kept as typed (a trailing comma included) and parsed on
 * every change; it is only replaced when the list changes from elsewhere.
 */
export function ListInput({
  value,
  onList,
  ...rest
}: { value: readonly string[]; onList: (list: string[]) => void } & Omit<
  InputHTMLAttributes<HTMLInputElement>,
  'value' | 'onChange'
>) {
  const [text, setText] = useState(value.join(', '));
  useEffect(() => {
    if (parse(text).join('\u0000') !== value.join('\u0000')) setText(value.join(', '));
    // Only an outside change of the list rewrites the text.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [value.join('\u0000')]);
  return (
    <input
      {...rest}
      value={text}
      onChange={(e) => {
        setText(e.target.value);
        onList(parse(e.target.value));
      }}
    />
  );
}
