import type { Redis } from 'ioredis';

/** A Lua script bound to one connection (scriptCommand). */
export type ScriptCommand<R> = (...args: (string | number)[]) => Promise<R>;

/**
 * A Lua script as a command of this connection (ioredis defineCommand): each call sends EVALSHA
 * with the script's digest, and EVAL with its text only when Redis does not have it yet (after a
 * restart or a SCRIPT FLUSH). A plain EVAL sends the whole script with every call and makes Redis
 * digest it again: on the incoming-webhook path, one per post, that was 3% of the process's CPU.
 * Arguments are as EVAL's after the script: the number of keys, the keys, then the arguments.
 */
export function scriptCommand<R>(redis: Redis, name: string, lua: string): ScriptCommand<R> {
  const commands = redis as unknown as Record<string, ScriptCommand<R> | undefined>;
  if (typeof commands[name] !== 'function') redis.defineCommand(name, { lua });
  return (...args) => commands[name]!.call(redis, ...args);
}
