import { Link } from '../lib/router'

export function NotFoundPage({ reason = 'Nothing is at this address.' }: { reason?: string }) {
  return (
    <section>
      <h1>Not found</h1>
      <p>{reason}</p>
      <p>
        <Link to="/">Go to the start page</Link>
      </p>
    </section>
  )
}
