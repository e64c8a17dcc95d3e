import { randomUUID } from 'node:crypto'

/**
 * Just enough of a POSIX shell to run the guides' `sh` blocks as a reader pastes them: words with
 * quotes, `$NAME`, `${NAME}` and `$( ... )`, `\` line continuations, comments, assignments
 * (`NAME=...`, `export NAME=...`), pipelines and a trailing `&`. `curl` and everything that is not
 * `jq` or `echo` is handed to the host. Anything else (redirections, `&&`, `;`, a jq filter beyond
 * plain paths) fails loudly instead of being guessed at, so a guide can only use what is checked.
 */

export type Part = { text: string } | { variable: string } | { substitution: string }
export type Word = Part[]
type Operator = '|' | '||' | '&' | '&&' | ';' | '>' | '>>' | '<'
type Token = { word: Word } | { operator: Operator }

/** One logical line of a block (continuations joined), as its tokens and its text for messages. */
export interface ShellLine {
  source: string
  tokens: Token[]
}

/** A guide step that cannot run as written: the message quotes the line. */
export class GuideError extends Error {}

const NAME = /^[A-Za-z_][A-Za-z0-9_]*/
const OPERATORS: readonly Operator[] = ['||', '&&', '>>', '|', '&', ';', '>', '<']

/** The index of the `)` closing a `$(` whose script starts at `from`; quotes and nesting respected. */
function closingParenthesis(text: string, from: number): number {
  let depth = 1
  for (let i = from; i < text.length; i++) {
    const c = text[i]
    if (c === "'" || c === '"') {
      const end = text.indexOf(c, i + 1)
      if (end < 0) break
      i = end
    } else if (c === '(') depth++
    else if (c === ')' && --depth === 0) return i
  }
  throw new GuideError(`unclosed $( in: ${text.slice(from - 2, from + 80)}`)
}

/** Reads the `$...` at `at` into `push`; answers the index of its last character. */
function dollar(text: string, at: number, push: (part: Part) => void): number {
  if (text[at + 1] === '(') {
    const end = closingParenthesis(text, at + 2)
    push({ substitution: text.slice(at + 2, end) })
    return end
  }
  if (text[at + 1] === '{') {
    const end = text.indexOf('}', at + 2)
    const name = text.slice(at + 2, end)
    if (end < 0 || !NAME.test(name) || NAME.exec(name)![0] !== name) throw new GuideError(`unsupported \${...} in: ${text.slice(at, at + 40)}`)
    push({ variable: name })
    return end
  }
  const name = NAME.exec(text.slice(at + 1))?.[0]
  if (!name) {
    push({ text: '$' })
    return at
  }
  push({ variable: name })
  return at + name.length
}

/** Splits a block into lines of tokens. */
export function shellLines(block: string): ShellLine[] {
  const lines: ShellLine[] = []
  let tokens: Token[] = []
  let word: Word | undefined
  let lineStart = 0
  let lineEnd: number | undefined
  const push = (part: Part) => {
    word ??= []
    const last = word.at(-1)
    if ('text' in part && last && 'text' in last) last.text += part.text
    else word.push({ ...part })
  }
  const endWord = () => {
    if (word) tokens.push({ word })
    word = undefined
  }
  const endLine = (at: number) => {
    endWord()
    const source = block.slice(lineStart, lineEnd ?? at).replace(/\\\n\s*/g, ' ').trim()
    if (tokens.length) lines.push({ source, tokens })
    tokens = []
    lineStart = at + 1
    lineEnd = undefined
  }
  for (let i = 0; i < block.length; i++) {
    const c = block[i]!
    if (c === '\\' && block[i + 1] === '\n') {
      i++
      endWord()
    } else if (c === '\n') {
      endLine(i)
    } else if (c === '#' && word === undefined) {
      lineEnd = i
      while (i + 1 < block.length && block[i + 1] !== '\n') i++
    } else if (c === ' ' || c === '\t') {
      endWord()
    } else if (c === "'") {
      const end = block.indexOf("'", i + 1)
      if (end < 0) throw new GuideError(`unclosed ' in: ${block.slice(lineStart, i + 80)}`)
      push({ text: block.slice(i + 1, end) })
      i = end
    } else if (c === '"') {
      push({ text: '' })
      for (i++; block[i] !== '"'; i++) {
        if (i >= block.length) throw new GuideError(`unclosed " in: ${block.slice(lineStart, lineStart + 80)}`)
        if (block[i] === '\\' && '$"\\`'.includes(block[i + 1]!)) push({ text: block[++i]! })
        else if (block[i] === '$') i = dollar(block, i, push)
        else push({ text: block[i]! })
      }
    } else if (c === '$') {
      i = dollar(block, i, push)
    } else if (c === '\\') {
      push({ text: block[++i] ?? '' })
    } else if ('|&;<>'.includes(c)) {
      endWord()
      const operator = OPERATORS.find((op) => block.startsWith(op, i))!
      tokens.push({ operator })
      i += operator.length - 1
    } else {
      push({ text: c })
    }
  }
  endLine(block.length)
  return lines
}

export interface Assignment {
  name: string
  value: Word
}

/** A line as the shell sees it: assignments, then a pipeline of commands (none for `NAME=...`). */
export interface ShellCommand {
  source: string
  exported: boolean
  assignments: Assignment[]
  pipeline: Word[][]
  background: boolean
}

const plainText = (word: Word): string | undefined => (word.length === 1 && 'text' in word[0]! ? word[0].text : undefined)

function assignmentOf(word: Word): Assignment | undefined {
  const first = word[0]
  if (!first || !('text' in first)) return undefined
  const match = /^([A-Za-z_][A-Za-z0-9_]*)=/.exec(first.text)
  if (!match) return undefined
  const rest = first.text.slice(match[0].length)
  return { name: match[1]!, value: [...(rest ? [{ text: rest }] : []), ...word.slice(1)] }
}

export function shellCommand(line: ShellLine): ShellCommand {
  const tokens = [...line.tokens]
  const background = tokens.length > 0 && 'operator' in tokens.at(-1)! && (tokens.at(-1) as { operator: Operator }).operator === '&'
  if (background) tokens.pop()
  const stages: Word[][] = [[]]
  for (const token of tokens) {
    if ('word' in token) stages.at(-1)!.push(token.word)
    else if (token.operator === '|') stages.push([])
    else throw new GuideError(`the guide shell does not run "${token.operator}" (use one command per line): ${line.source}`)
  }
  const first = stages[0]!
  const exported = first.length > 0 && plainText(first[0]!) === 'export'
  if (exported) first.shift()
  const assignments: Assignment[] = []
  while (first.length > 0 && assignmentOf(first[0]!)) assignments.push(assignmentOf(first.shift()!)!)
  const pipeline = first.length === 0 && stages.length === 1 ? [] : stages
  if (pipeline.some((stage) => stage.length === 0)) throw new GuideError(`an empty command in a pipeline: ${line.source}`)
  if (exported && pipeline.length > 0) throw new GuideError(`export takes assignments only: ${line.source}`)
  return { source: line.source, exported, assignments, pipeline, background }
}

/** The commands of a block, in order. */
export function shellCommands(block: string): ShellCommand[] {
  return shellLines(block).map(shellCommand)
}

/** `$(uuidgen || date +%s%N)`: a fresh key per request, as the guides' Idempotency-Key uses it. */
const UNIQUE_KEY_SCRIPT = 'uuidgen || date +%s%N'

/** Every variable a word expands, including inside its `$( ... )`. */
function variablesOf(word: Word): string[] {
  return word.flatMap((part) => {
    if ('variable' in part) return [part.variable]
    if ('substitution' in part) return part.substitution.trim() === UNIQUE_KEY_SCRIPT ? [] : shellCommands(part.substitution).flatMap(variablesOfCommand)
    return []
  })
}

function variablesOfCommand(command: ShellCommand): string[] {
  return [...command.assignments.flatMap((a) => variablesOf(a.value)), ...command.pipeline.flat().flatMap(variablesOf)]
}

/**
 * The guide variable check, without running anything: each use of a variable that no earlier
 * command of the blocks (or `given`) set, quoted with its line. Empty when the guide is sound.
 */
export function unsetVariableUses(blocks: readonly string[], given: Iterable<string> = []): string[] {
  const set = new Set(given)
  const problems: string[] = []
  for (const command of blocks.flatMap(shellCommands)) {
    for (const name of new Set(variablesOfCommand(command))) {
      if (!set.has(name)) problems.push(`$${name} is used before any command sets it: ${command.source}`)
    }
    // `NAME=value command` sets NAME for that command only.
    if (command.pipeline.length === 0) command.assignments.forEach((a) => set.add(a.name))
  }
  return problems
}

/** The jq filters the guides use: a path of `.name` and `[index]` steps, nothing else. */
export function jqPath(filter: string, input: unknown, source: string): unknown {
  const step = /\.([A-Za-z_][A-Za-z0-9_]*)|\.?\[(\d+)\]/y
  if (!filter.startsWith('.')) throw new GuideError(`jq filter ${filter} is not a path (.a.b[0].c): ${source}`)
  let value = input
  if (filter === '.') return value
  while (step.lastIndex < filter.length) {
    const at = step.lastIndex
    const match = step.exec(filter)
    if (!match || match.index !== at) throw new GuideError(`jq filter ${filter} is not a path (.a.b[0].c): ${source}`)
    const key = match[1] ?? Number(match[2])
    value = value !== null && typeof value === 'object' ? (value as Record<string | number, unknown>)[key] : undefined
  }
  // jq would print "null" and the guide would carry it into the next command: fail here instead.
  if (value === undefined || value === null) throw new GuideError(`jq ${filter} finds nothing in ${JSON.stringify(input).slice(0, 300)}: ${source}`)
  return value
}

/** What runs the commands the shell does not run itself. */
export interface ShellHost {
  /** Files the guide reads (`jq ... data/credentials.json`), by the path written. */
  files: Record<string, string>
  /** A `curl` command's arguments, expanded: answers what curl prints. */
  curl(args: string[], source: string): Promise<string>
  /** Any other command (`sleep`, `node receiver.mjs`): answers its output, or fails as unsupported. */
  run(argv: string[], context: { env: Record<string, string>; background: boolean; source: string }): Promise<string>
}

/** A shell session: variables persist from one command to the next, as in the reader's terminal. */
export class GuideShell {
  readonly variables = new Map<string, string>()
  private readonly exported = new Set<string>()

  constructor(private readonly host: ShellHost) {}

  async runBlock(block: string): Promise<void> {
    for (const command of shellCommands(block)) await this.runCommand(command)
  }

  async runCommand(command: ShellCommand): Promise<string> {
    const values: [string, string][] = []
    for (const { name, value } of command.assignments) values.push([name, await this.expand(value, command.source)])
    if (command.pipeline.length === 0) {
      for (const [name, value] of values) {
        this.variables.set(name, value)
        if (command.exported) this.exported.add(name)
      }
      return ''
    }
    const env = Object.fromEntries([...[...this.exported].map((name) => [name, this.variables.get(name)!] as const), ...values])
    let output = ''
    for (const [index, stage] of command.pipeline.entries()) {
      const argv: string[] = []
      for (const word of stage) argv.push(await this.expand(word, command.source))
      output = await this.runProgram(argv, index === 0 ? undefined : output, { env, background: command.background, source: command.source })
    }
    return output
  }

  private async runProgram(argv: string[], stdin: string | undefined, context: { env: Record<string, string>; background: boolean; source: string }): Promise<string> {
    const [program, ...args] = argv
    if (program === 'echo') return `${args.join(' ')}\n`
    if (program === 'jq') return this.jq(args, stdin, context.source)
    if (stdin !== undefined) throw new GuideError(`the guide shell pipes only into jq: ${context.source}`)
    if (program === 'curl') return this.host.curl(args, context.source)
    return this.host.run(argv, context)
  }

  private jq(args: string[], stdin: string | undefined, source: string): string {
    const raw = args[0] === '-r'
    const [filter, file, ...extra] = raw ? args.slice(1) : args
    if (!filter || extra.length > 0 || filter.startsWith('-')) throw new GuideError(`the guide shell runs "jq [-r] PATH [FILE]" only: ${source}`)
    let text = stdin
    if (file !== undefined) {
      text = this.host.files[file]
      if (text === undefined) throw new GuideError(`the guide reads ${file}, which the test does not provide: ${source}`)
    }
    let input: unknown
    try {
      input = JSON.parse(text ?? '')
    } catch {
      throw new GuideError(`jq was given no JSON (${(text ?? '').slice(0, 200)}): ${source}`)
    }
    const value = jqPath(filter, input, source)
    return `${raw && typeof value === 'string' ? value : JSON.stringify(value)}\n`
  }

  private async expand(word: Word, source: string): Promise<string> {
    let text = ''
    for (const part of word) {
      if ('text' in part) text += part.text
      else if ('variable' in part) {
        const value = this.variables.get(part.variable)
        if (value === undefined) throw new GuideError(`$${part.variable} is used before any command sets it: ${source}`)
        text += value
      } else if (part.substitution.trim() === UNIQUE_KEY_SCRIPT) {
        text += randomUUID()
      } else {
        const commands = shellCommands(part.substitution)
        if (commands.length !== 1) throw new GuideError(`$( ... ) holds one command in the guides: ${source}`)
        // As the shell does, the trailing newlines of the output are dropped.
        text += (await this.runCommand({ ...commands[0]!, source })).replace(/\n+$/, '')
      }
    }
    return text
  }
}
