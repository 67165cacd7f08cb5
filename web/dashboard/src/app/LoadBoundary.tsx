import { Component, type ReactNode } from 'react';

/**
 * Catches a screen's chunk that failed to load (a deploy replaced the hashed files, the network dropped) or a
 * fault while drawing it: the person gets a message and a way out instead of an empty page.
 */
export class LoadBoundary extends Component<{ children: ReactNode }, { failed: boolean }> {
  override state = { failed: false };
  static getDerivedStateFromError() {
    return { failed: true };
  }
  override render() {
    if (!this.state.failed) return this.props.children;
    return (
      <div role="alert">
        <h1>This screen could not be shown</h1>
        <p>Reload the page to try again; if it keeps failing, the service may be updating.</p>
        <button type="button" onClick={() => location.reload()}>
          Reload the page
        </button>
      </div>
    );
  }
}
