import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { describe, expect, it } from 'vitest'

/**
 * The README is the front door and docs/ holds the reference: a link from either to a file that
 * moved, or to a heading that was renamed, is a dead end for a newcomer.
 */

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
const slug = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-')

const anchorsOf = (markdown: string) => new Set([...markdown.matchAll(/^#{1,6} (.+)$/gm)].map((m) => slug(m[1]!)))

/** Markdown links outside code blocks: `[text](target)`. */
function linksOf(markdown: string): string[] {
  const prose = markdown.replace(/```[\s\S]*?```/g, '')
  return [...prose.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!).filter((target) => !/^[a-z]+:/.test(target))
}

const documents = ['README.md', ...readdirSync('docs').filter((name) => name.endsWith('.md')).map((name) => join('docs', name))]

describe('links between the README and docs/', () => {
  it.each(documents)('when %s links to a file or a heading, then it exists', (document) => {
    const broken = linksOf(readFileSync(document, 'utf8')).filter((target) => {
      const [path, anchor] = target.split('#') as [string, string | undefined]
      const file = path === '' ? document : join(dirname(document), path)
      if (!existsSync(file)) return true
      return anchor !== undefined && file.endsWith('.md') && !anchorsOf(readFileSync(file, 'utf8')).has(anchor)
    })
    expect(broken).toEqual([])
  })

  it('when the README is read, then its contents list links to every section', () => {
    const readme = readFileSync('README.md', 'utf8')
    const contents = readme.slice(readme.indexOf('## Contents'), readme.indexOf('\n## ', readme.indexOf('## Contents') + 3))
    const sections = [...readme.matchAll(/^## (.+)$/gm)].map((m) => slug(m[1]!)).filter((s) => !['contents', 'license'].includes(s))
    expect(sections.filter((section) => !contents.includes(`](#${section})`))).toEqual([])
  })
})
