/** The app's frame: a skip link, the banner and the main region every screen renders into. */
export function App() {
  return (
    <>
      <a className="skip-link" href="#main">Skip to content</a>
      <header className="banner">
        <p className="product">Dashboards</p>
      </header>
      <main id="main" tabIndex={-1}>
        <h1>Dashboards</h1>
        <p>Sign in to see your dashboards.</p>
      </main>
    </>
  );
}
