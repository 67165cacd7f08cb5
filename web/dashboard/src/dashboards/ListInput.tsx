import { useState, type InputHTMLAttributes } from 'react';

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
  // Only an outside change of the list rewrites the text (checked while rendering, so the old text is never painted):
  // a list the text already says, such as the one just typed, leaves it as typed.
  const list = value.join('\u0000');
  const [shown, setShown] = useState(list);
  if (list !== shown) {
    setShown(list);
    if (parse(text).join('\u0000') !== list) setText(value.join(', '));
  }
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
