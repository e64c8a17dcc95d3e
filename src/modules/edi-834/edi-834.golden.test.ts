import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { X12Parser } from 'node-x12'
import { describe, expect, it } from 'vitest'
import { parse834 } from './edi-834.parse.js'
import { check834 } from './edi-834.rules.js'
import { CHANGE_HEADER, CHANGE_MEMBERS, ENVELOPE, FULL_FAMILY, LIFE_EVENT_HEADER, LIFE_EVENT_MEMBERS, MINIMAL_FAMILY, REPLACE_HEADER } from './edi-834.test-fixtures.js'
import { write834ToString } from './edi-834.writer.js'

/**
 * The committed files in test/golden/834 pin the writer's exact output. A change to the writer
 * that alters a byte fails here; when the change is intended, regenerate with
 * `UPDATE_GOLDEN=1 SKIP_BUILD=1 npx vitest run src/modules/edi-834` and review the diff.
 */
const GOLDEN_DIR = fileURLToPath(new URL('../../../test/golden/834/', import.meta.url))
const UPDATE = process.env.UPDATE_GOLDEN === '1'

const CASES = [
  {
    file: 'full-replace.edi',
    what: 'a full replace file: 2 families, PCPs, class and location reporting categories, a mailing address, 2 brokers',
    write: () => write834ToString(ENVELOPE, REPLACE_HEADER, [...FULL_FAMILY, ...MINIMAL_FAMILY]),
  },
  {
    file: 'change.edi',
    what: 'a change file: an addition, a change and a termination',
    write: () => write834ToString({ ...ENVELOPE, interchangeControlNumber: 43, createdAt: new Date('2025-03-11T09:05:00Z') }, CHANGE_HEADER, CHANGE_MEMBERS),
  },
  {
    file: 'life-events.edi',
    what: 'a life-event change file: an adoption with dated coverage level and volume changes, a COBRA continuation, a termination with eligibility end',
    write: () => write834ToString({ ...ENVELOPE, interchangeControlNumber: 44, createdAt: new Date('2025-04-14T08:00:00Z') }, LIFE_EVENT_HEADER, LIFE_EVENT_MEMBERS),
  },
]

describe('golden 834 files', () => {
  for (const { file, what, write } of CASES) {
    it(`when ${what} is regenerated, then it is byte for byte ${file}`, async () => {
      const text = await write()
      const path = `${GOLDEN_DIR}${file}`
      if (UPDATE) {
        mkdirSync(GOLDEN_DIR, { recursive: true })
        writeFileSync(path, text)
      }
      expect(text).toBe(readFileSync(path, 'utf8'))
    })

    it(`when ${file} is checked, then node-x12 (strict) and check834 accept it and it reads back`, () => {
      const text = readFileSync(`${GOLDEN_DIR}${file}`, 'utf8')
      expect(() => new X12Parser(true).parse(text)).not.toThrow()
      expect(check834(text)).toEqual([])
      expect(parse834(text).members.length).toBeGreaterThan(0)
    })
  }
})
