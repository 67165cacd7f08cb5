// pa11y-ci (devDependency, compared against in `npm run bench:audit`) brings puppeteer, whose install would
// download a Chrome of its own. It never needs one: the benchmark points it at the platform's Chromium.
module.exports = { skipDownload: true };
