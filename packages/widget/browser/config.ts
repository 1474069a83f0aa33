/** Where the bundle was loaded from and for which workspace, read from its own script tag. */
export interface WidgetConfig {
  /** The workspace public key (`data-key`). */
  key: string;
  /** Origin + path before `/widget/v1.js`, e.g. `https://ferry.example.com`. */
  base: string;
  /** The bundle's own absolute URL, as stack frames and ErrorEvent.filename show it. */
  scriptUrl: string;
}

export const SCRIPT_PATH = '/widget/v1.js';

/**
 * document.currentScript is set while a classic script (async ones too) first runs; when it is
 * not (another loader injected the bundle), the last script tag pointing at the bundle is ours.
 */
export function readConfig(): WidgetConfig | null {
  let script = document.currentScript as HTMLScriptElement | null;
  if (!script || !script.src || script.src.indexOf(SCRIPT_PATH) < 0) {
    const all = document.querySelectorAll<HTMLScriptElement>(`script[src*="${SCRIPT_PATH}"]`);
    script = all.length ? (all[all.length - 1] ?? null) : null;
  }
  if (!script) return null;
  const scriptUrl = script.src;
  const key = (script.getAttribute('data-key') || '').trim();
  const at = scriptUrl.indexOf(SCRIPT_PATH);
  if (!key || at < 0) return null;
  return { key, base: scriptUrl.slice(0, at), scriptUrl };
}
