/**
 * The destination of an outbound call, as the job claim groups and backs off calls (see
 * claimDueJobs): the URL's origin, `scheme://host[:port]` in lower case. The port is part of it,
 * because two services on one host fail independently; the path is not, because a host that
 * stopped answering stopped for every path. Null for a URL that cannot be parsed (its job fails
 * on its own, refused).
 */
export function destinationOf(url: string): string | null {
  try {
    const origin = new URL(url).origin
    return origin === 'null' ? null : origin.toLowerCase()
  } catch {
    return null
  }
}
