/**
 * Signs a user in through the login form, as a browser does (the page's CSRF token, then the
 * POST), and returns the session cookie (`name=value`): for socket.io clients and raw fetches
 * against a running app. Throws when the form does not redirect (a refused sign-in).
 */
export async function sessionCookie(url: string, email: string, password: string): Promise<string> {
  const page = await fetch(`${url}/login`);
  const cookie = page.headers.getSetCookie()[0]?.split(';')[0] ?? '';
  const csrf = /name="csrf-token" content="([^"]+)"/.exec(await page.text())?.[1] ?? '';
  const res = await fetch(`${url}/login`, {
    method: 'POST',
    headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ email, password, _csrf: csrf }),
    redirect: 'manual',
  });
  if (res.status !== 302) throw new Error(`sign-in failed: ${res.status}`);
  return res.headers.getSetCookie()[0]?.split(';')[0] ?? '';
}
