import { randomBytes } from 'node:crypto';

const PAGES = ['/', '/pricing', '/checkout', '/account/settings', '/docs/getting-started', '/search?q=shoes'];
const TYPES = [
  'page.view',
  'ui.click',
  'ui.input',
  'api.request',
  'api.response',
  'state.change',
  'journey.step',
  'performance',
  'error',
  'custom',
];

/** About 550 bytes of JSON per event, shaped like what a web SDK sends. `@ID@` is replaced per request. */
export function eventTemplates(projectId: string, count = 1000): string[] {
  return Array.from({ length: count }, (_, i) => {
    const type = TYPES[i % TYPES.length]!;
    const event: Record<string, unknown> = {
      event_id: '@ID@',
      project_id: projectId,
      'session.id': `sess-${i % 37}-${randomBytes(4).toString('hex')}`,
      'event.type': type,
      'event.timestamp': new Date(Date.UTC(2025, 2, 4, 10, 0, 0) + i * 137).toISOString(),
      'event.sequence': i,
      'user.id': `user-${i % 91}`,
      'page.path': PAGES[i % PAGES.length],
      'page.url': `https://shop.example.com${PAGES[i % PAGES.length]}`,
      'page.title': 'Example Shop — fast shoes for everyone',
      'ui.component.name': 'AddToCartButton',
      'ui.component.path': 'App/Layout/ProductPage/BuyBox/AddToCartButton',
      'ui.action': 'click',
      metadata: {
        plan: i % 3 === 0 ? 'pro' : 'free',
        experiment: 'checkout-v2',
        viewport: { w: 1440, h: 900 },
        locale: 'en-GB',
      },
    };
    if (type.startsWith('api.'))
      Object.assign(event, {
        'api.method': 'POST',
        'api.path': '/api/cart',
        'api.status_code': 201,
        'api.duration_ms': 40 + (i % 60),
      });
    if (type === 'error')
      Object.assign(event, {
        'error.type': 'TypeError',
        'error.message': 'Cannot read properties of undefined',
        'error.stack': 'TypeError: x\n    at render (app.js:10:5)',
      });
    if (type === 'state.change')
      Object.assign(event, {
        'ui.state.key': 'cart',
        'ui.state.before': '{"items":1}',
        'ui.state.after': '{"items":2}',
      });
    return JSON.stringify(event);
  });
}
