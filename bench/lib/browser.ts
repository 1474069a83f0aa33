/**
 * A cookie-keeping client, enough to sign in as a member and read pages: how the benches read
 * what a signed-in browser reads (the session cookie and the login form's CSRF token, as a
 * browser sends them).
 */
export class Browser {
  private cookies = new Map<string, string>();
  constructor(private readonly base: string) {}

  /** The Cookie header a browser would send now. */
  cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  async request(path: string, init: RequestInit = {}): Promise<{ status: number; text: string }> {
    const res = await fetch(this.base + path, {
      ...init,
      headers: {
        cookie: this.cookieHeader(),
        ...(init.headers as Record<string, string> | undefined),
      },
      redirect: 'manual',
    });
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const [name, ...value] = (pair ?? '').split('=');
      if (name) this.cookies.set(name.trim(), value.join('='));
    }
    return { status: res.status, text: await res.text() };
  }

  async signIn(email: string, password: string): Promise<void> {
    const page = await this.request('/login');
    const token = /name="csrf-token" content="([^"]+)"/.exec(page.text)?.[1] ?? '';
    const res = await this.request('/login', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ email, password, _csrf: token }).toString(),
    });
    if (res.status !== 302) throw new Error(`sign-in answered ${res.status}`);
  }
}
