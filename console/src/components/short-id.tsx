import { shortId } from '../lib/format'

/** The end of an id, enough to tell rows apart; the full id is in the title. */
export function ShortId({ id }: { id: string }) {
  return (
    <code className="mono" title={id}>
      {shortId(id)}
    </code>
  )
}
