/**
 * JSON for a generated file people read and diff (openapi.json): one member per line, except
 * that an object or array whose one-line form fits in `width` characters (after its key) stays
 * on one line, and tabs indent. `{"$ref": "#/components/schemas/Group"}` and `["id", "name"]`
 * then read at a glance, and the document takes about a third of the bytes that
 * `JSON.stringify(value, null, 2)` needs for it.
 */
export function compactJson(value: unknown, width = 100): string {
  return render(value, '', 0, width)
}

function oneLine(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((item) => oneLine(item === undefined ? null : item)).join(', ')}]`
  if (value !== null && typeof value === 'object') {
    const members = Object.entries(value).filter(([, item]) => item !== undefined)
    return `{${members.map(([key, item]) => `${JSON.stringify(key)}: ${oneLine(item)}`).join(', ')}}`
  }
  return JSON.stringify(value)
}

function render(value: unknown, indent: string, prefixLength: number, width: number): string {
  const line = oneLine(value)
  if (value === null || typeof value !== 'object' || prefixLength + line.length <= width) return line
  const inner = `${indent}\t`
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]'
    return `[\n${value.map((item) => inner + render(item === undefined ? null : item, inner, 0, width)).join(',\n')}\n${indent}]`
  }
  const members = Object.entries(value).filter(([, item]) => item !== undefined)
  if (members.length === 0) return '{}'
  const lines = members.map(([key, item]) => {
    const name = `${JSON.stringify(key)}: `
    return inner + name + render(item, inner, name.length, width)
  })
  return `{\n${lines.join(',\n')}\n${indent}}`
}
