import type { DetailFrame } from '../errors/index.js';

/**
 * A browser's `error.stack` text read as frames, so the lines a source map can resolve are known
 * (issue 45: the widget stores the page's stack as the browser wrote it). V8 writes a header
 * (`Name: message`, maybe several lines) then `at fn (url:line:col)` or `at url:line:col`; Gecko
 * and WebKit write `fn@url:line:col` with no header. A line that is neither stays as text.
 */

export interface StackLine {
  /** The line as the browser wrote it, trimmed. */
  text: string;
  /** Where it points, when it names a script position. */
  frame?: DetailFrame;
}

const V8_FRAME = /^at\s+(?:(.+?)\s+\()?(.+?):(\d+):(\d+)\)?$/;
const GECKO_FRAME = /^(.*?)@(.+?):(\d+):(\d+)$/;

function frameOf(text: string): DetailFrame | undefined {
  const match = V8_FRAME.exec(text) ?? GECKO_FRAME.exec(text);
  if (!match) return undefined;
  const [, fn, file, line, column] = match;
  return {
    ...(fn ? { function: fn.replace(/^async\s+/, '') } : {}),
    file: file!,
    line: Number(line),
    column: Number(column),
  };
}

/** The stack's frame lines, innermost first, without V8's header. */
export function stackLines(stack: string): StackLine[] {
  const lines = stack
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
  const firstV8 = lines.findIndex((line) => line.startsWith('at '));
  return (firstV8 > 0 ? lines.slice(firstV8) : lines).map((text) => {
    const frame = frameOf(text);
    return frame ? { text, frame } : { text };
  });
}
