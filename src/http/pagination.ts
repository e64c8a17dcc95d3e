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
 * Sets Total, Per-Page, Page and an RFC 8288 Link header (first, prev, next, last) built from the
 * request's own URL, so filters carry over to the links. A page past the end is an empty list.
 */
export function setPaginationHeaders(request: FastifyRequest, reply: FastifyReply, pageReq: PageRequest, total: number): void {
  const lastPage = Math.max(1, Math.ceil(total / pageReq.perPage))
  const url = new URL(request.url, `${request.protocol}://${request.host}`)
  const linkTo = (page: number) => {
    url.searchParams.set('page', String(page))
    url.searchParams.set('per_page', String(pageReq.perPage))
    return url.toString()
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
