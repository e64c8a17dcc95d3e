import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { renderErrorReference } from '../src/http/error-docs.js'
import { errorTable } from '../src/http/error-table.js'

describe('docs/errors.md', () => {
  it('when the error table changes, then the committed reference must be regenerated (npm run openapi)', () => {
    expect(readFileSync('docs/errors.md', 'utf8'), 'docs/errors.md is stale: run `npm run openapi`').toBe(renderErrorReference())
  })

  it('when the reference is rendered, then every code appears with its status', () => {
    const doc = renderErrorReference()
    for (const [code, entry] of Object.entries(errorTable)) expect(doc).toContain(`| \`${code}\` | ${entry.status} |`)
  })
})
