import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { arrayLiteral } from '../src/db/array-literal.js'
import { startTestApp, type TestApp } from './helpers/test-app.js'

let t: TestApp
beforeAll(async () => {
  t = await startTestApp()
})
afterAll(async () => t?.close())

describe('array literals bound as one parameter', () => {
  it('when the database reads a literal back, then it holds exactly the values given, whatever their characters', async () => {
    const values = ['', 'NULL', 'null', 'a,b', 'a b', ' x ', 'tab\there', 'line\nbreak', '{}', 'say "hi"', 'c:\\dir\\', 'Zoë Ñúñez', '😀', "O'Brien", 'plain', null]
    const row = await sql<{ values: (string | null)[] }>`SELECT ${arrayLiteral(values)}::text[] AS values`.execute(t.db)
    expect(row.rows[0]!.values).toEqual(values)
  })

  it('when ids and numbers are given, then they read back as uuid[] and integer[]', async () => {
    const ids = ['01a21a07-724b-711e-a12d-f50101f80d1e', '00000000-0000-7000-8000-000000000000']
    const row = await sql<{ ids: string[]; numbers: number[] }>`SELECT ${arrayLiteral(ids)}::uuid[] AS ids, ${arrayLiteral([3, -1, 0])}::integer[] AS numbers`.execute(t.db)
    expect(row.rows[0]).toEqual({ ids, numbers: [3, -1, 0] })
  })
})
