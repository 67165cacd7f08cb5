import { chromium, type Browser, type BrowserContext } from 'playwright-core';
import { CHROMIUM_ARGS, findChromium } from '../../kit/browser.ts';

/**
 * Chromium keeps only the last `--disable-features` it is given, and Playwright passes its own list first (its
 * `chromiumSwitches.ts`, as of playwright-core 1.65): so ours repeats Playwright's, which matter to how pages load
 * (HTTPS upgrades, third-party storage partitioning, paint holding, CORS redirects under interception).
 * `test/audit/browser-host.test.ts` reads the launched browser's command line and fails when a Playwright upgrade
 * names a feature this list lacks.
 */
const PLAYWRIGHT_DISABLED_FEATURES = [
  'AvoidUnnecessaryBeforeUnloadCheckSync',
  'DestroyProfileOnBrowserClose',
  'HttpsUpgrades',
  'HttpsFirstBalancedModeAutoEnable',
  'LensOverlay',
  'MediaRouter',
  'PaintHolding',
  'ThirdPartyStoragePartitioning',
  'AvoidCorsURLLoaderRestartOnRedirect',
  'TcpPortRandomizationWin',
  'OptimizationHints',
  'NetworkTimeServiceQuerying',
  'AimEnabled',
  'PreconnectToSearch',
  'msForceBrowserSignIn',
  'msEdgeUpdateLaunchServicesPreferredVersion',
];

/**
 * Headless Chromium 156 still builds a window's browser UI, and a new page is a new window whose omnibox may load its
 * suggestions popup, a WebUI app of ~150 JavaScript modules, in a renderer of its own. It did for every page when an
 * audit's pages came one at a time (a one-page audit, `AUDIT_PAGE_CONCURRENCY=1`): 2.24 s of CPU a page with it,
 * 1.17 s without (bench/README.md, issue 33). Pages never see the omnibox.
 */
const AUDIT_DISABLED_FEATURES = ['WebUIOmniboxPopup', 'WebUIOmniboxAimPopup'];

const AUDIT_ARGS = [
  ...CHROMIUM_ARGS,
  `--disable-features=${[...PLAYWRIGHT_DISABLED_FEATURES, ...AUDIT_DISABLED_FEATURES].join(',')}`,
  // WebRTC could otherwise send UDP to any address the page names, past the egress proxy.
  '--force-webrtc-ip-handling-policy=disable_non_proxied_udp',
  '--webrtc-ip-handling-policy=disable_non_proxied_udp',
  // axe's run grows each page's V8 young generation to V8's default cap, and the page closes before anything shrinks
  // it: with 2 MB semi-spaces a 50-page crawl's renderers peaked at 273 MB instead of 336 MB, at the same CPU per
  // page and the same findings (bench/README.md, issue 33).
  '--js-flags=--max-semi-space-size=2',
];

export const AUDIT_USER_AGENT_TOKEN = 'PlatformAudit';

/** Where the host tells of its browser's starts and deaths: the service's logger, or a CLI's error stream. */
export interface HostLog {
  info(details: object, message: string): void;
  warn(message: string): void;
}

/**
 * One Chromium per process, started on first use and started again if it dies (crash, OOM kill); each
 * audit gets its own context through its own egress proxy, so audits share no cookies, cache or storage.
 */
export class BrowserHost {
  private launching: Promise<Browser> | null = null;
  private closed = false;
  private readonly log: HostLog;
  private readonly env: NodeJS.ProcessEnv;
  constructor(log: HostLog, env: NodeJS.ProcessEnv = process.env) {
    this.log = log;
    this.env = env;
  }

  async browser(): Promise<Browser> {
    if (this.closed) throw new Error('the browser host is closed');
    if (this.launching) {
      const current = await this.launching.catch(() => null);
      if (current?.isConnected()) return current;
      this.launching = null;
    }
    const launching = this.launch();
    this.launching = launching;
    launching.catch(() => {
      if (this.launching === launching) this.launching = null;
    });
    return launching;
  }

  private async launch(): Promise<Browser> {
    const browser = await chromium.launch({
      executablePath: await findChromium(this.env),
      args: AUDIT_ARGS,
      headless: true,
    });
    browser.on('disconnected', () => {
      if (!this.closed) this.log.warn('Chromium disconnected; the next audit starts a new one');
    });
    this.log.info({ version: browser.version() }, 'Chromium started');
    return browser;
  }

  /** A fresh context whose every request goes through `proxyServer`; loopback too (Chromium would bypass proxies for it). */
  async newContext(proxyServer: string): Promise<BrowserContext> {
    try {
      return await this.openContext(proxyServer);
    } catch (err) {
      // The browser may have died just now, before its disconnect was noticed: start a new one, once.
      const current = await this.launching?.catch(() => null);
      if (current?.isConnected()) throw err;
      this.launching = null;
      return this.openContext(proxyServer);
    }
  }

  private async openContext(proxyServer: string): Promise<BrowserContext> {
    const browser = await this.browser();
    const version = browser.version();
    return browser.newContext({
      proxy: { server: proxyServer, bypass: '<-loopback>' },
      serviceWorkers: 'block',
      acceptDownloads: false,
      viewport: { width: 1280, height: 900 },
      userAgent: `Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${version} Safari/537.36 ${AUDIT_USER_AGENT_TOKEN}`,
    });
  }

  async version(): Promise<string> {
    return `Chromium ${(await this.browser()).version()}`;
  }

  async close(): Promise<void> {
    this.closed = true;
    const launching = this.launching;
    this.launching = null;
    const browser = await launching?.catch(() => null);
    await browser?.close().catch(() => {});
  }
}
