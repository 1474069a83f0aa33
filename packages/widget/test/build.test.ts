import vm from 'node:vm';
import { describe, expect, it } from 'vitest';
import { buildWidget, WIDGET_SNIPPET, widgetEtag } from '../src/index.js';

describe('buildWidget', () => {
  it('bundles a minified ES2019 script under the size budget with a content ETag', async () => {
    const first = await buildWidget();
    // Parses as a classic script (what a <script src> runs).
    expect(() => new vm.Script(first.code, { filename: 'v1.js' })).not.toThrow();
    // Minified: long lines (only template literals keep newlines), no comments, short names.
    const lines = first.code.split('\n');
    expect(lines.length).toBeLessThan(10);
    expect(first.code.length / lines.length).toBeGreaterThan(1_000);
    expect(first.code).not.toMatch(/\/\*|^\s*\/\//m);
    expect(first.code).not.toContain('createUi');
    expect(first.code.startsWith('"use strict";(()=>{')).toBe(true);
    expect(first.code).toContain('/widget/v1/feedback');
    // ASCII only: safe whatever charset the host page declares.
    expect(/^[\x20-\x7e\n]*$/.test(first.code)).toBe(true);
    expect(first.bytes).toBe(Buffer.byteLength(first.code));
    expect(first.gzipBytes).toBeGreaterThan(0);
    expect(first.gzipBytes).toBeLessThanOrEqual(14 * 1024);
    // Strong ETag: quoted, 27 base64url characters, the same for the same code.
    expect(first.etag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
    const second = await buildWidget();
    expect(second.code).toBe(first.code);
    expect(second.etag).toBe(first.etag);
    expect(widgetEtag(`${first.code};`)).not.toBe(first.etag);
    console.log(
      `widget bundle: ${first.bytes} bytes raw, ${first.gzipBytes} bytes gzipped, ETag ${first.etag}`,
    );
  });

  it('stays within 14 KB gzipped on first load: the screenshot code is a separate chunk', async () => {
    const build = await buildWidget();
    // The budget (issue 28): what a host page downloads before anyone asks for a screenshot.
    // Measured: 8,609 B gzipped before the screenshot step, 10,557 B with it (2026-11-26);
    // 13,447 B with evidence capture (issue 45, whose budget is 14 KB); 13,635 B once its
    // scrubber became core's own (@ferry/core/scrub) instead of a copy.
    const FIRST_LOAD_BUDGET = 14 * 1024;
    expect(build.gzipBytes).toBeLessThanOrEqual(FIRST_LOAD_BUDGET);
    // html2canvas-pro lives only in the chunk; v1.js knows the chunk's hashed URL, nothing more.
    expect(build.code).not.toMatch(/html2canvas/i);
    expect(build.capture.code).toMatch(/html2canvas/i);
    expect(build.capture.gzipBytes).toBeGreaterThan(FIRST_LOAD_BUDGET);
    expect(build.capture.path).toMatch(/^\/widget\/v1-capture\.js\?v=[A-Za-z0-9_-]{12}$/);
    expect(build.code).toContain(JSON.stringify(build.capture.path));
    expect(build.capture.etag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
    // A classic script too, that runs nothing but its IIFE without a DOM.
    expect(() => new vm.Script(build.capture.code, { filename: 'v1-capture.js' })).not.toThrow();
    console.log(
      `first load ${build.gzipBytes} B gzipped (budget ${FIRST_LOAD_BUDGET}); ` +
        `screenshot chunk ${build.capture.bytes} B raw, ${build.capture.gzipBytes} B gzipped`,
    );
  });

  it('does not run anything at parse time beyond its own IIFE', async () => {
    const { code } = await buildWidget();
    // Without a DOM the bundle must not throw: it finds no script tag and stands down.
    const sandbox = {
      window: {} as Record<string, unknown>,
      document: { currentScript: null, querySelectorAll: () => [] },
    };
    expect(() => {
      vm.runInNewContext(code, sandbox);
    }).not.toThrow();
    expect(sandbox.window.service).toBeUndefined();
  });
});

describe('WIDGET_SNIPPET', () => {
  it('is the queue stub plus the async bundle tag', () => {
    const snippet = WIDGET_SNIPPET('https://ferry.example.com/', 'pk_live_123');
    expect(snippet).toBe(
      '<script>window.service=window.service||function(){(window.service.q=window.service.q||[]).push(arguments)};</script>\n' +
        '<script src="https://ferry.example.com/widget/v1.js" data-key="pk_live_123" crossorigin="anonymous" async></script>',
    );
  });

  it('escapes both attributes', () => {
    const snippet = WIDGET_SNIPPET('https://x.test/a"b<c>&d', `pk_"><script>alert('x')</script>`);
    expect(snippet).toContain('src="https://x.test/a&quot;b&lt;c&gt;&amp;d/widget/v1.js"');
    expect(snippet).toContain(
      'data-key="pk_&quot;&gt;&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;"',
    );
    // Exactly the two script elements: nothing broke out of an attribute.
    expect(snippet.match(/<script/g)).toHaveLength(2);
  });
});
