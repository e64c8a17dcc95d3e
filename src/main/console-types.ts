import { fileURLToPath } from 'node:url'
// A development dependency: only `npm run openapi` and the drift test load this module.
import openapiTS, { astToString, COMMENT_HEADER } from 'openapi-typescript'

/** The console's typed client reads its types from here (console/src/api/client.ts). */
export const CONSOLE_TYPES_PATH = fileURLToPath(new URL('../../console/src/api/schema.d.ts', import.meta.url))

/**
 * The TypeScript types of the published document, as the openapi-typescript CLI writes them:
 * the console compiles against the same openapi.json clients get, so a route change that breaks
 * the console breaks the type check.
 */
export async function renderConsoleTypes(document: object): Promise<string> {
  // The document is passed parsed; openapi-typescript's own type for it is stricter than ours.
  const ast = await openapiTS(document as Parameters<typeof openapiTS>[0], { silent: true })
  return COMMENT_HEADER + astToString(ast)
}
