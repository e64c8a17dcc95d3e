import { writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { buildApp } from '../app.js'
import { openDatabase } from '../db/database.js'
import { renderErrorReference } from '../http/error-docs.js'
import { MemoryRateLimitStore } from '../http/rate-limit.js'
import { compactJson } from '../lib/compact-json.js'
import { SsnProtection } from '../lib/ssn-protection.js'
import { CONSOLE_TYPES_PATH, renderConsoleTypes } from './console-types.js'

/** Where the committed document lives: the repository root, two levels above dist/main/. */
export const OPENAPI_PATH = fileURLToPath(new URL('../../openapi.json', import.meta.url))
const ERROR_REFERENCE_PATH = fileURLToPath(new URL('../../docs/errors.md', import.meta.url))

/**
 * `npm run openapi`: writes openapi.json from the route schemas, docs/errors.md from the error
 * table, and the console's client types from openapi.json. Tests fail when the committed files
 * differ, so run this after changing a route or a code.
 */
async function main(): Promise<void> {
  const database = await openDatabase({ kind: 'memory' })
  const { app } = await buildApp({
    db: database.db,
    pingDatabase: database.ping,
    tokenSigningSecret: 'openapi-generation-only-secret-not-used-for-anything',
    // Throwaway keys: generating the document never seals or opens an SSN.
    ssnProtection: (({ encryptionKeys, hashKey }) => SsnProtection.fromConfig(encryptionKeys, hashKey))(SsnProtection.generateKeys()),
    rateLimitStore: new MemoryRateLimitStore(),
    rateLimit: { max: 1, windowSeconds: 1 },
    apiKeyCacheSeconds: 0,
    bodyLimitBytes: 1024,
    logger: false,
  })
  const document = app.swagger()
  // Compact (short objects on one line, tab indent): a readable diff at a third of the bytes.
  writeFileSync(OPENAPI_PATH, compactJson(document) + '\n')
  writeFileSync(ERROR_REFERENCE_PATH, renderErrorReference())
  writeFileSync(CONSOLE_TYPES_PATH, await renderConsoleTypes(document))
  await app.close()
  await database.close()
  console.log(`Wrote ${OPENAPI_PATH}, ${ERROR_REFERENCE_PATH} and ${CONSOLE_TYPES_PATH}`)
}

await main()
