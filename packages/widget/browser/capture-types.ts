/** What the screenshot chunk (capture.ts) hands to the widget once it has loaded. */
export interface CaptureModule {
  /** The visible part of the page, without `ignore` (the widget), `picked` outlined. */
  capture(ignore: Element, picked: Element | null): Promise<HTMLCanvasElement>;
}
