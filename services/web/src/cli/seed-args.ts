/** What `pnpm seed` was asked for; `problem` set means print it and exit 2. */
export interface SeedArgs {
  json: boolean;
  outgoingUrl: string | undefined;
  /** Demo workspaces to create in this one call (`--count N`; benchmarks need several). */
  count: number;
  problem?: string;
}

/** Enough for any benchmark; each workspace costs three sign-ups (password hashing). */
export const SEED_COUNT_MAX = 1_000;

export function parseSeedArgs(argv: readonly string[]): SeedArgs {
  const valueOf = (flag: string): string | undefined => {
    const at = argv.indexOf(flag);
    return at >= 0 ? (argv[at + 1] ?? '') : undefined;
  };
  const args: SeedArgs = { json: argv.includes('--json'), outgoingUrl: undefined, count: 1 };
  const outgoingUrl = valueOf('--outgoing-url');
  if (outgoingUrl !== undefined) {
    if (!/^https?:\/\/\S+$/.test(outgoingUrl)) {
      return {
        ...args,
        problem:
          '--outgoing-url needs an http(s) URL, e.g. --outgoing-url http://127.0.0.1:9000/hook',
      };
    }
    args.outgoingUrl = outgoingUrl;
  }
  const count = valueOf('--count');
  if (count !== undefined) {
    if (!/^\d+$/.test(count) || Number(count) < 1 || Number(count) > SEED_COUNT_MAX) {
      return { ...args, problem: `--count needs a whole number from 1 to ${SEED_COUNT_MAX}` };
    }
    args.count = Number(count);
  }
  return args;
}
