/**
 * A turn of the event loop: lets the database driver read the answers that arrived and send the
 * next queued statement. node-postgres sends one statement at a time, each once the last one's
 * answer has been read, and answers are read only when the event loop gets a turn: bulk work that
 * computes for tens of milliseconds on resolved promises leaves the database idle meanwhile
 * (file-builder.ts and the census yield with this between pieces of a batch).
 */
export function turnOfEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve))
}
