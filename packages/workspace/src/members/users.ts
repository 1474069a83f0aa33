import { AppError, hashPassword, newId, verifyPassword } from '@ferry/core';
import type { Db, User } from '@ferry/db';
import { z } from 'zod';

export const signUpSchema = z.object({
  name: z.string().trim().min(1, 'Enter your name.').max(120, 'At most 120 characters.'),
  email: z.email('Enter a valid email address.').trim().max(254, 'At most 254 characters.'),
  password: z.string().min(8, 'Use at least 8 characters.').max(200, 'At most 200 characters.'),
});
export type SignUpInput = z.infer<typeof signUpSchema>;

export const signInSchema = z.object({
  email: z.string().trim().min(1, 'Enter your email.').max(254, 'At most 254 characters.'),
  password: z.string().min(1, 'Enter your password.').max(200, 'At most 200 characters.'),
});

export async function signUp(db: Db, input: SignUpInput): Promise<User> {
  const existing = await findUserByEmail(db, input.email);
  if (existing) {
    throw new AppError('conflict', 'An account with this email already exists. Sign in instead.', {
      fields: { email: 'An account with this email already exists.' },
    });
  }
  return db
    .insertInto('users')
    .values({
      id: newId('user'),
      email: input.email.toLowerCase(),
      name: input.name,
      password_hash: await hashPassword(input.password),
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export function findUserByEmail(db: Db, email: string): Promise<User | undefined> {
  return db
    .selectFrom('users')
    .selectAll()
    .where((eb) => eb(eb.fn('lower', ['email']), '=', email.toLowerCase()))
    .executeTakeFirst();
}

export function findUser(db: Db, id: string): Promise<User | undefined> {
  return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
}

// A real hash to verify against when the email is unknown, so timing does not reveal accounts.
let decoyHash: Promise<string> | undefined;

/** The user for these credentials, or undefined. Takes the same time either way. */
export async function authenticate(
  db: Db,
  email: string,
  password: string,
): Promise<User | undefined> {
  const user = await findUserByEmail(db, email);
  const ok = await verifyPassword(
    password,
    user?.password_hash ?? (await (decoyHash ??= hashPassword('decoy-password'))),
  );
  return user && ok ? user : undefined;
}
