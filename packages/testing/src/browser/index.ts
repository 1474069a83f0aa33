// '@ferry/testing/browser': Chromium and axe, kept out of the main entry because playwright-core
// alone costs ~0.4 s of CPU to load in every test worker that imports it, and most files drive no
// browser.
export {
  SHARED_CHROMIUM_ENV,
  launchBrowser,
  signInWithForm,
  startSharedChromium,
} from './chromium.js';
export type { TestBrowser } from './chromium.js';
export { axeViolations } from './axe.js';
export type { AxeViolation } from './axe.js';
export { SHOTS_ENV, photograph } from './photograph.js';
export { PAGE_WIDTHS, checkBothWidths } from './both-widths.js';
