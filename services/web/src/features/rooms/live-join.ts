import { z } from 'zod';
import { isId } from '@ferry/core';

/** `room:join`: the room a page shows, and the last message it rendered (to catch up from). */
export const joinSchema = z.object({
  roomId: z.string().refine((v) => isId(v, 'room')),
  after: z
    .string()
    .refine((v) => isId(v, 'message'))
    .optional(),
});
