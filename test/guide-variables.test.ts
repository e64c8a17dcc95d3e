import { readdirSync, readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { GuideError, GuideShell, unsetVariableUses, type ShellHost } from './helpers/guide-shell.js'
import { GUIDES, guideBlocks, guideChain, sectionsWithCurl } from './helpers/readme-guide.js'

/**
 * The guide variable check: a reader pastes a guide into a fresh shell, so every `$NAME` must be
 * set by an earlier command of that guide (or of the guide it says it continues). These tests
 * hold the check itself, so it cannot silently stop checking, and run it over the README.
 */

/** A host whose curl answers one JSON document, recording what it was asked. */
function fakeHost(answer: unknown, calls: string[][] = []): ShellHost {
  return {
    files: { 'data/credentials.json': JSON.stringify({ partner: { api_key: 'esk_partner' } }) },
    curl: async (args) => {
      calls.push(args)
      return JSON.stringify(answer)
    },
    run: async (argv) => {
      throw new GuideError(`no ${argv[0]}`)
    },
  }
}

describe('the guide variable check', () => {
  it('when a command uses a variable no earlier command set, then the check fails and quotes the line', async () => {
    const guide = `PARTNER_KEY=$(jq -r '.partner.api_key' data/credentials.json)
curl -s http://127.0.0.1:3000/groups/$GROUP_ID -H "Service-Api-Key: $PARTNER_KEY"
`
    expect(unsetVariableUses([guide])).toEqual([
      '$GROUP_ID is used before any command sets it: curl -s http://127.0.0.1:3000/groups/$GROUP_ID -H "Service-Api-Key: $PARTNER_KEY"',
    ])
    await expect(new GuideShell(fakeHost({})).runBlock(guide)).rejects.toThrow('$GROUP_ID is used before any command sets it: curl -s http://127.0.0.1:3000/groups/$GROUP_ID')
  })

  it('when a variable is set only after the command that uses it, or only for another command, then the check fails', () => {
    expect(unsetVariableUses(['curl -s "http://127.0.0.1:3000/x/${ID}"\nID=1\n'])).toHaveLength(1)
    expect(unsetVariableUses(['SECRET=abc node receiver.mjs &\necho "$SECRET"\n'])).toEqual(['$SECRET is used before any command sets it: echo "$SECRET"'])
    // Inside a command substitution and a quoted JSON body too.
    expect(unsetVariableUses([`X=$(echo "$ANSWER" | jq -r '.a')\n`])).toHaveLength(1)
    expect(unsetVariableUses([`curl -s -d '{"id": "'$LOCATION_ID'"}' http://127.0.0.1:3000/x\n`])).toHaveLength(1)
  })

  it('when every variable is set first, from the credentials file or an answer, then the guide runs and carries the ids', async () => {
    const calls: string[][] = []
    const shell = new GuideShell(fakeHost({ group: { id: 'g-1', locations: [{ id: 'l-1' }] } }, calls))
    const guide = `PARTNER_KEY=$(jq -r '.partner.api_key' data/credentials.json)
GROUP_ID=$(curl -s -X POST http://127.0.0.1:3000/groups -H "Service-Api-Key: $PARTNER_KEY" \\
  -H "Idempotency-Key: $(uuidgen || date +%s%N)" -d '{"group": {}}' | jq -r '.group.id')
LOCATION_ID=$(curl -s http://127.0.0.1:3000/groups/$GROUP_ID -H "Service-Api-Key: $PARTNER_KEY" | jq -r '.group.locations[0].id')
`
    expect(unsetVariableUses([guide])).toEqual([])
    await shell.runBlock(guide)
    expect(Object.fromEntries(shell.variables)).toEqual({ PARTNER_KEY: 'esk_partner', GROUP_ID: 'g-1', LOCATION_ID: 'l-1' })
    expect(calls[0]).toEqual(['-s', '-X', 'POST', 'http://127.0.0.1:3000/groups', '-H', 'Service-Api-Key: esk_partner', '-H', expect.stringMatching(/^Idempotency-Key: [0-9a-f-]{36}$/), '-d', '{"group": {}}'])
    expect(calls[1]).toContain('http://127.0.0.1:3000/groups/g-1')
  })

  it('when a jq filter is more than a path, or finds nothing, or the shell would need more than the guides use, then the guide fails loudly', async () => {
    const shell = new GuideShell(fakeHost({ group: { id: 'g-1' } }))
    await expect(shell.runBlock(`X=$(curl -s http://127.0.0.1:3000/g | jq -r '.group | keys')\n`)).rejects.toThrow(GuideError)
    await expect(shell.runBlock(`X=$(curl -s http://127.0.0.1:3000/g | jq -r '.group.name')\n`)).rejects.toThrow(/finds nothing/)
    await expect(shell.runBlock(`curl -s http://127.0.0.1:3000/g > out.json\n`)).rejects.toThrow(/does not run ">"/)
    await expect(shell.runBlock(`npm start\n`)).rejects.toThrow(/no npm/)
  })
})

describe('the README guides', () => {
  it('when the README is read, then every section that calls the API is a guide the tests run', () => {
    expect(sectionsWithCurl().sort()).toEqual(Object.keys(GUIDES).sort())
  })

  it.each(Object.keys(GUIDES))('when "%s" is pasted into a fresh shell, then every variable it uses is set by an earlier command', (heading) => {
    const blocks = guideChain(heading).flatMap((section) => guideBlocks(section, 'sh'))
    expect(unsetVariableUses(blocks)).toEqual([])
  })

  it('when a guide uses jq, then the README says once how to get it', () => {
    const readme = readFileSync('README.md', 'utf8')
    expect(readme).toMatch(/`jq`[^\n]*(apt-get|brew) install jq/)
  })
})

describe('the documentation index', () => {
  it('when a document is added to docs/, then docs/README.md lists it', () => {
    const index = readFileSync('docs/README.md', 'utf8')
    const documents = readdirSync('docs').filter((name) => name.endsWith('.md') && name !== 'README.md')
    expect(documents.filter((name) => !index.includes(`](${name})`))).toEqual([])
  })
})
