import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMember, createWorkspace } from '@ferry/testing';
import { launchBrowser, type TestBrowser } from '@ferry/testing/browser';
import { startWeb, type WebHarness } from './harness.js';

describe('sign-in in a real browser', () => {
  let web: WebHarness;
  let browser: TestBrowser;
  beforeAll(async () => {
    [web, browser] = await Promise.all([startWeb(), launchBrowser()]);
  });
  afterAll(async () => {
    await Promise.all([browser?.close(), web?.close()]);
  });

  it('signs in with the labelled form, and says so when the password is wrong', async () => {
    const workspace = await createWorkspace(web.ctx.db, { name: 'Harbour' });
    const member = await createMember(web.ctx.db, workspace);
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(`${web.url}/login`);

      await page.getByLabel('Email').fill(member.user.email);
      await page.getByLabel('Password').fill('not the password');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('alert').waitFor();
      expect(await page.getByRole('alert').textContent()).toContain(
        'That email and password do not match an account.',
      );
      expect(new URL(page.url()).pathname).toBe('/login');
      // The email is kept, the password is not.
      expect(await page.getByLabel('Email').inputValue()).toBe(member.user.email);
      expect(await page.getByLabel('Password').inputValue()).toBe('');

      await page.getByLabel('Password').fill(member.user.password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL((url) => url.pathname === `/w/${workspace.id}/${workspace.slug}`);
      expect(await page.locator('.topbar .who').textContent()).toBe(member.user.name);
      expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Harbour');
    } finally {
      await context.close();
    }
  });
});
