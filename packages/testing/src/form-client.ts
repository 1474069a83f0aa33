/**
 * A cookie-keeping client for form posts: gets the CSRF token from a page, then posts with it.
 * It asks for uncompressed answers: what it tests is the forms, and compressing every page it reads
 * cost the fuzzers about a tenth of their time (compression itself is tested in packages/http and
 * by every browser test, whose pages come compressed).
 */
export class FormClient {
  private cookies = new Map<string, string>();
  constructor(private readonly base: string) {}

  private cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  private keep(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const [name, ...value] = (pair ?? '').split('=');
      if (name) this.cookies.set(name.trim(), value.join('='));
    }
  }

  async get(
    path: string,
    headers: Record<string, string> = {},
  ): Promise<{ status: number; text: string; location: string | null }> {
    const res = await fetch(this.base + path, {
      headers: { cookie: this.cookieHeader(), 'accept-encoding': 'identity', ...headers },
      redirect: 'manual',
    });
    this.keep(res);
    return { status: res.status, text: await res.text(), location: res.headers.get('location') };
  }

  /** A GET with this client's cookies, answered as the raw Response (images, headers). */
  async raw(path: string): Promise<Response> {
    const res = await fetch(this.base + path, {
      headers: { cookie: this.cookieHeader() },
      redirect: 'manual',
    });
    this.keep(res);
    return res;
  }

  async csrf(path = '/login'): Promise<string> {
    const page = await this.get(path);
    const match = /name="csrf-token" content="([^"]+)"/.exec(page.text);
    if (!match?.[1]) throw new Error(`No CSRF token on ${path} (status ${page.status})`);
    return match[1];
  }

  /**
   * Posts a form with a fresh CSRF token unless `_csrf` is given (even as ''). A list is a field
   * sent once per value, as checked checkboxes of one name are.
   */
  async post(
    path: string,
    form: Record<string, string | readonly string[]>,
    options: { csrfFrom?: string } = {},
  ): Promise<{ status: number; text: string; location: string | null }> {
    const body = new URLSearchParams();
    for (const [name, value] of Object.entries(form)) {
      for (const one of typeof value === 'string' ? [value] : value) body.append(name, one);
    }
    if (!('_csrf' in form)) body.set('_csrf', await this.csrf(options.csrfFrom ?? '/login'));
    const res = await fetch(this.base + path, {
      method: 'POST',
      headers: {
        cookie: this.cookieHeader(),
        'accept-encoding': 'identity',
        'content-type': 'application/x-www-form-urlencoded',
      },
      body,
      redirect: 'manual',
    });
    this.keep(res);
    return { status: res.status, text: await res.text(), location: res.headers.get('location') };
  }

  /**
   * The page a Post/Redirect/Get answer leads to (a refused form's 303 shows its error there);
   * throws when the answer was not a redirect, naming its status.
   */
  async follow(answer: { status: number; location: string | null }): Promise<{
    status: number;
    text: string;
    location: string | null;
  }> {
    if (answer.status < 300 || answer.status > 399 || !answer.location)
      throw new Error(`Expected a redirect to follow, got ${answer.status}`);
    return this.get(answer.location.replace(this.base, ''));
  }

  async signIn(email: string, password: string): Promise<void> {
    const res = await this.post('/login', { email, password });
    if (res.status !== 302) throw new Error(`Sign-in failed with ${res.status}`);
  }
}
