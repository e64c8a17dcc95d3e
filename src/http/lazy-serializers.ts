import { SerializerSelector } from '@fastify/fast-json-stringify-compiler'
import type { FastifyServerOptions } from 'fastify'

const buildFastifySerializers = SerializerSelector()

/**
 * Fastify's own response serializers (fast-json-stringify, fed the same schemas and options),
 * each compiled when its route first answers with its status instead of all at start-up.
 * Compiling every route's response schemas up front took about 0.6 s of CPU, a quarter of what a
 * restart costs (issue 12: `npm start` listening in under 3 s); on first use each takes a few
 * milliseconds, once. The serialized output is unchanged.
 */
type CompilersFactory = NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>

export const lazySerializerCompilers: CompilersFactory = {
  buildSerializer: (externalSchemas, options) => {
    const compile = buildFastifySerializers(externalSchemas, options)
    return (route) => {
      let serialize: ((data: unknown) => string) | undefined
      return (data) => (serialize ??= compile(route))(data)
    }
  },
}
