/** Thread -> process: the writer's workers are registered. */
export const WRITER_READY = 'ferry:writer-ready';
/** Process -> thread: finish the active batches and close. */
export const WRITER_STOP = 'ferry:writer-stop';
/** Thread -> process: closed; the thread can end. */
export const WRITER_STOPPED = 'ferry:writer-stopped';
