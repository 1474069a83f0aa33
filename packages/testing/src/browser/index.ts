// '@ferry/testing/browser': Chromium and axe, kept out of the main entry because playwright-core
// alone costs ~0.4 s of CPU to load in every test worker that imports it, and most files drive no
// browser.
export * from './chromium.js';
export * from './axe.js';
export * from './photograph.js';
