import type { Emit } from './emit.ts';
import { componentName, componentPath, describe, interactiveTarget, visibleText } from './elements.ts';

function uiFields(el: Element, maskAttribute: string, action: string): Record<string, unknown> {
  const fields: Record<string, unknown> = {
    'ui.action': action,
    'ui.element': describe(el),
    'ui.element.text': visibleText(el, maskAttribute),
    'ui.component.path': componentPath(el),
    'ui.component.type': el.tagName.toLowerCase(),
  };
  const name = componentName(el);
  if (name) fields['ui.component.name'] = name;
  return fields;
}

/** `ui.click` on what was clicked (its interactive ancestor), in the capture phase so handlers that stop propagation do not hide it. */
export function captureClicks(emit: Emit, maskAttribute: string): () => void {
  const onClick = (e: MouseEvent) => {
    const el = interactiveTarget(e.target);
    if (el) emit('ui.click', uiFields(el, maskAttribute, 'click'));
  };
  document.addEventListener('click', onClick, true);
  return () => document.removeEventListener('click', onClick, true);
}

/** `ui.submit` for a form: which form, never what was typed into it. */
export function captureForms(emit: Emit, maskAttribute: string): () => void {
  const onSubmit = (e: SubmitEvent) => {
    if (e.target instanceof HTMLFormElement)
      emit('ui.submit', {
        ...uiFields(e.target, maskAttribute, 'submit'),
        'ui.element.text': e.target.getAttribute('name') ?? e.target.getAttribute('aria-label') ?? '',
      });
  };
  document.addEventListener('submit', onSubmit, true);
  return () => document.removeEventListener('submit', onSubmit, true);
}
