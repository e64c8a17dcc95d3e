import { once } from 'node:events'
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { keysetCsvExport } from '../src/db/csv-export.js'
import { startTestApp, type TestApp } from './helpers/test-app.js'

// The streamed export's hold on the database: a client that keeps the connection open but reads
// nothing must not keep the export's transaction (on the embedded database, its only connection).

let t: TestApp
beforeAll(async () => {
  t = await startTestApp()
})
afterAll(async () => t?.close())

interface Row {
  text: string
  keys: string
}

describe('the keyset CSV export', () => {
  it('when the client reads nothing for the stall time, then the export ends with a reason and lets the database go', async () => {
    let pagesRead = 0
    const stream = keysetCsvExport<Row>(
      t.db,
      [['Text', (row) => row.text]],
      async (tx) => async (_after, limit) => {
        // Each page runs a statement in the export's transaction, as the real readers do.
        await sql`select 1`.execute(tx)
        pagesRead++
        return Array.from({ length: limit }, (_, i) => ({ text: 'x'.repeat(1000), keys: JSON.stringify([String(pagesRead * limit + i)]) }))
      },
      { pageRows: 100, stallMs: 300 },
    )
    const [error] = (await once(stream, 'error')) as [Error]
    expect(error.message).toBe('the client read none of the export for 0.3 s')
    // The buffer filled after a page or two; no page was read after the export gave up.
    const readWhenStopped = pagesRead
    expect(readWhenStopped).toBeLessThan(5)
    // The transaction is over: the database answers another statement at once.
    const row = await sql<{ one: number }>`select 1 as one`.execute(t.db)
    expect(row.rows[0]!.one).toBe(1)
    await new Promise((resolve) => setTimeout(resolve, 100))
    expect(pagesRead).toBe(readWhenStopped)
  })

  it('when the client reads, then every page arrives and the stream ends', async () => {
    const stream = keysetCsvExport<Row>(
      t.db,
      [['Text', (row) => row.text]],
      async () => async (after, limit) => {
        const start = after ? Number(after[0]) + 1 : 0
        const end = Math.min(start + limit, 7)
        return Array.from({ length: end - start }, (_, i) => ({ text: `row ${start + i}`, keys: JSON.stringify([String(start + i)]) }))
      },
      { pageRows: 3, stallMs: 300 },
    )
    let text = ''
    for await (const chunk of stream) text += String(chunk)
    expect(text).toBe('\uFEFFText\r\n' + Array.from({ length: 7 }, (_, i) => `row ${i}\r\n`).join(''))
  })
})
