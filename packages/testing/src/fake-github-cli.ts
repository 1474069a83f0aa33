// `pnpm fake-github`: a FakeGitHub for trying Ferry's GitHub dispatch locally, without a real App.
// Prints the environment lines to paste into Ferry's env on stdout; logs requests on stderr.
import { FakeGitHub } from './fake-github/index.js';

function portFrom(value: string | undefined): number {
  const port = Number(value ?? 3999);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new Error(`FAKE_GITHUB_PORT must be a port number, got ${value}`);
  }
  return port;
}

/** One line per request, method and path only: never the query (OAuth codes) or a header. */
function logRequest(request: { method: string; url: string }): void {
  process.stderr.write(`${request.method} ${request.url.split('?')[0]}\n`);
}

/** KEY=value lines; the PEM goes on one line with literal \n, which Ferry's config turns back. */
function envLines(fake: FakeGitHub): string[] {
  const privateKey = fake.privateKeyPem.trim().replace(/\n/g, '\\n');
  return [
    `GITHUB_APP_ID=${fake.appId}`,
    `GITHUB_APP_SLUG=${fake.slug}`,
    `GITHUB_CLIENT_ID=${fake.clientId}`,
    `GITHUB_CLIENT_SECRET=${fake.clientSecret}`,
    `GITHUB_APP_PRIVATE_KEY="${privateKey}"`,
    `GITHUB_API_URL=${fake.apiUrl}`,
    `GITHUB_WEB_URL=${fake.webUrl}`,
  ];
}

async function main(): Promise<void> {
  const publicUrl = (process.env.PUBLIC_URL ?? 'http://localhost:3000').replace(/\/+$/, '');
  const logins = (process.env.FAKE_GITHUB_USERS ?? 'octocat')
    .split(',')
    .map((login) => login.trim())
    .filter(Boolean);
  const fake = new FakeGitHub({
    pathPrefix: process.env.FAKE_GITHUB_PATH_PREFIX || undefined,
    onRequest: logRequest,
  });
  for (const login of logins.length ? logins : ['octocat']) fake.addUser(login);
  fake.setupUrl = `${publicUrl}/github/setup`;
  fake.callbackUrl = `${publicUrl}/github/callback`;
  await fake.start(portFrom(process.env.FAKE_GITHUB_PORT));

  const browserUser = logins[0] ?? 'octocat';
  const repos = fake.nextInstallRepos.map((repo) => `${browserUser}/${repo.name}`).join(', ');
  process.stdout.write(
    `${envLines(fake).join('\n')}\n` +
      `# The browser user on the fake's OAuth and install pages is ${browserUser} (the first of ` +
      `FAKE_GITHUB_USERS); installing the App gives them ${repos}.\n`,
  );

  const stop = (): void => {
    fake.close().then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`fake-github: ${String(error)}\n`);
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((error: unknown) => {
  process.stderr.write(`fake-github: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
