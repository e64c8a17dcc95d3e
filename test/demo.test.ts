import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { ssnProblem } from '../src/lib/identifiers.js'
import { DEMO_SSNS, subscribersBody } from '../src/main/demo-data.js'
import { runProcess } from './helpers/processes.js'

/**
 * `npm run demo` as a new integrator runs it: the built script in a child process (the global
 * setup builds dist first), with only PATH and its own TMPDIR in the environment, so it can
 * neither find DATABASE_URL nor leave anything behind unnoticed.
 */
const scratch = mkdtempSync(join(tmpdir(), 'demo-test-'))
afterAll(() => rmSync(scratch, { recursive: true, force: true }))

const birthDates = subscribersBody('location').subscribers.flatMap((s) => [s.birth_date, ...s.dependents.map((d) => d.birth_date)])

describe('npm run demo', () => {
  // The demo took 24 s in CI and 45 s on a loaded machine: it may run 180 s before it is killed,
  // and the test allows that and the checks after it.
  it('when run, then it narrates the whole life cycle, prints no SSN or birth date, cleans up and exits 0', { timeout: 240_000 }, async () => {
    const { code, output } = await runProcess('dist/main/demo.js', [], { TMPDIR: scratch }, 180_000)
    expect(code, output).toBe(0)

    // Each step, with its essential result.
    expect(output).toMatch(/POST \/coverage_periods\/\{id\}\/complete_setup -> work order \S+ open/)
    expect(output).toMatch(/POST \/work_orders\/\{id\}\/transitions submitted -> submitted/)
    expect(output).toMatch(/file_deliveries -> full sent: \S+\.x12, 7 members/)
    expect(output).toContain('ISA*00*')
    // The 834 lines it prints say what they are: the envelope, the header, a member's loop, the trailer.
    expect(output).toMatch(/interchange header: from ZZ ENROLLSYNC to ZZ SANDBOX_EDI/)
    expect(output).toMatch(/BGN\*00\*.*\n.*action RX replace/)
    expect(output).toMatch(/INS\*Y\*18\*021\*28\*A\*\*\*FT +a member's loop starts: Y subscriber, 18 self, 021 addition, reason 28 initial enrollment/)
    expect(output).toMatch(/NM1\*IL\*1\*Doe\*Jane\*\*\*\*34\*\*\*\*-\*\*-\d{4} +member name \(IL insured\), 34 = a Social Security number follows \(masked here\)/)
    expect(output).toMatch(/DMG\*D8\*\*\*\*\*\d{4}\*F\*M +demographics: birth date \(D8; year masked here\)/)
    expect(output).toMatch(/HD\*021\*\*HLT\*Gold PPO 500\*FAM +health coverage: maintenance 021 addition, line HLT health \(medical\), coverage level FAM family/)
    expect(output).toMatch(/IEA\*1\*\d{9} +interchange trailer/)
    expect(output).toMatch(/work_order -> completed by "Sandbox carrier \(EDI\)"/)
    expect(output).toMatch(/coverage period production, carrier_group_number SBX-\w+; group phase member_management/)
    expect(output).toMatch(/errors\?source=reconciliation -> 3 errors/)
    for (const raised of ['residential_address carrier_value_differs', 'birth_date carrier_value_differs', 'dependent carrier_missing']) expect(output).toContain(raised)
    expect(output).toMatch(/PUT \/subscribers\/\S+ .* status pending/)
    expect(output).toMatch(/change sent: \S+\.x12, 1 transaction/)
    expect(output).toMatch(/INS\*Y\*18\*001\*25\*A\*\*\*FT +a member's loop starts: Y subscriber, 18 self, 001 change/)
    expect(output).toMatch(/address error \S+ -> resolved/)
    expect(output).toContain('status synced')
    expect(output).toMatch(/-> resolved by jane\.doe@example\.com/)
    expect(output).toMatch(/7\. Summary/)
    expect(output).toMatch(/Done in [\d.]+ s/)
    // It ends with how to open the same data in the console.
    expect(output.trimEnd().split('\n').slice(-3).join('\n')).toMatch(/Open the same data in the operations console:\n.*npm run demo -- --keep\n.*npm start/)

    // No SSN in any form: neither the demo's own, nor anything that could be one.
    for (const ssn of DEMO_SSNS) {
      expect(output).not.toContain(ssn)
      expect(output).not.toContain(`${ssn.slice(0, 3)}-${ssn.slice(3, 5)}-${ssn.slice(5)}`)
    }
    // 123-45-6789 or 123456789 (a ZIP+4 such as 62704-0001 is neither), unless never issuable (ISA13 000000001).
    const ssnShaped = [...output.matchAll(/(?<![\w-])(?:\d{3}-\d{2}-\d{4}|\d{9})(?![\w-])/g)]
      .map((m) => m[0])
      .filter((text) => ssnProblem(text.replace(/-/g, '')) === undefined)
    expect(ssnShaped).toEqual([])
    for (const date of birthDates) {
      expect(output).not.toContain(date)
      expect(output).not.toContain(date.replace(/-/g, ''))
    }

    // The temporary data directory is gone.
    expect(readdirSync(scratch)).toEqual([])
  })
})
