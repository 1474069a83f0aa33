/**
 * The screenshot chunk (issue 28), loaded only when a visitor asks to attach a screenshot: renders
 * the visible part of the page into a canvas with html2canvas-pro (DOM to canvas, in the page: no
 * extension, no screen-share prompt), leaves the widget out, and outlines the picked element.
 * A classic script, so a host page's CSP treats it like v1.js; it hands its one function to the
 * loader through an event on its own script element, so it adds no global.
 */
import html2canvas from 'html2canvas-pro';
import type { CaptureModule } from './capture-types';

const OUTLINE = '#3b5bdb';

const captureModule: CaptureModule = {
  async capture(ignore, picked) {
    const width = window.innerWidth;
    const height = window.innerHeight;
    const body = document.body ? getComputedStyle(document.body).backgroundColor : '';
    const canvas = await html2canvas(document.documentElement, {
      x: window.scrollX,
      y: window.scrollY,
      width,
      height,
      windowWidth: document.documentElement.clientWidth || width,
      windowHeight: height,
      // One image pixel per CSS pixel: sharp enough to read, small enough to send.
      scale: 1,
      logging: false,
      useCORS: true,
      imageTimeout: 5000,
      backgroundColor: body && body !== 'rgba(0, 0, 0, 0)' ? body : '#ffffff',
      ignoreElements: (el) => el === ignore,
    });
    if (picked && picked.isConnected) {
      const rect = picked.getBoundingClientRect();
      const ctx = canvas.getContext('2d');
      if (ctx && rect.width > 0 && rect.height > 0) {
        const sx = canvas.width / width;
        const sy = canvas.height / height;
        ctx.save();
        ctx.strokeStyle = OUTLINE;
        ctx.lineWidth = 3 * sx;
        ctx.setLineDash([]);
        ctx.strokeRect(
          Math.max(rect.left * sx - 2, 1.5),
          Math.max(rect.top * sy - 2, 1.5),
          Math.min(rect.width * sx + 4, canvas.width - 3),
          Math.min(rect.height * sy + 4, canvas.height - 3),
        );
        ctx.restore();
      }
    }
    return canvas;
  },
};

const script = document.currentScript;
if (script) {
  script.dispatchEvent(new CustomEvent('ferry-capture', { detail: captureModule }));
}
