import type { FastifyReply, FastifyRequest } from 'fastify'

export interface PageRequest {
  page: number
  perPage: number
}

export interface Page<T> {
  items: T[]
  total: number
}

export function pageRequest(query: { page: number; per_page: number }): PageRequest {
  return { page: query.page, perPage: query.per_page }
}

export function offsetOf({ page, perPage }: PageRequest): number {
  return (page - 1) * perPage
}

/**
 * The request's URL, absolute when its Host (or X-Forwarded-Host) is a valid authority. The Host
 * header is the client's text: `bad host`, a port past 65535 or `[::1` made `new URL` throw and
 * every list answer a 500. Such a request gets relative links instead (path and query), which
 * RFC 8288 allows and a client resolves against the URL it asked for.
 */
function requestUrl(request: FastifyRequest): { url: URL; absolute: boolean } {
  try {
    return { url: new URL(request.url, `${request.protocol}://${request.host}`), absolute: true }
  } catch {
    return { url: new URL(request.url, 'http://invalid-host.invalid'), absolute: false }
  }
}

/**
 * Sets Total, Per-Page, Page and an RFC 8288 Link header (first, prev, next, last) built from the
 * request's own URL, so filters carry over to the links. A page past the end is an empty list.
 */
export function setPaginationHeaders(request: FastifyRequest, reply: FastifyReply, pageReq: PageRequest, total: number): void {
  const lastPage = Math.max(1, Math.ceil(total / pageReq.perPage))
  const { url, absolute } = requestUrl(request)
  const linkTo = (page: number) => {
    url.searchParams.set('page', String(page))
    url.searchParams.set('per_page', String(pageReq.perPage))
    return absolute ? url.toString() : `${url.pathname}${url.search}`
  }
  const links = [`<${linkTo(1)}>; rel="first"`]
  if (pageReq.page > 1) links.push(`<${linkTo(Math.min(pageReq.page - 1, lastPage))}>; rel="prev"`)
  if (pageReq.page < lastPage) links.push(`<${linkTo(pageReq.page + 1)}>; rel="next"`)
  links.push(`<${linkTo(lastPage)}>; rel="last"`)
  reply.header('Total', String(total))
  reply.header('Per-Page', String(pageReq.perPage))
  reply.header('Page', String(pageReq.page))
  reply.header('Link', links.join(', '))
}
