import { Type, type Static } from 'typebox'

/**
 * How a carrier's data reaches it, as written in CARRIERS_FILE next to each carrier. Secrets are
 * never written here: the file names the environment variables that hold them, so the file can be
 * reviewed and committed while the secrets stay in the deployment's secret store.
 */

const EnvVarName = Type.String({
  pattern: '^[A-Za-z_][A-Za-z0-9_]*$',
  maxLength: 200,
  description: 'Name of an environment variable (the value itself never appears in this file)',
})

export const DirectoryTransportSettings = Type.Object(
  {
    type: Type.Literal('directory'),
    path: Type.Optional(
      Type.String({
        minLength: 1,
        description: "Directory the files are written to; default: the deployment's outbound directory + /<carrier name>",
      }),
    ),
  },
  { additionalProperties: false, description: 'Write files to a local directory (a mount the carrier collects from, or tests)' },
)
export type DirectoryTransportSettings = Static<typeof DirectoryTransportSettings>

// OpenSSH prints `SHA256:<base64 without padding>` (ssh-keygen -lf); hex is accepted too, with or
// without colons, so a pin can be copied from whatever the carrier sends.
const HOST_KEY_PIN = '^(SHA256:)?([A-Za-z0-9+/]{43}=?|[0-9A-Fa-f]{64}|([0-9A-Fa-f]{2}:){31}[0-9A-Fa-f]{2})$'

export const SftpTransportSettings = Type.Object(
  {
    type: Type.Literal('sftp'),
    host: Type.String({ minLength: 1, maxLength: 253 }),
    port: Type.Optional(Type.Integer({ minimum: 1, maximum: 65535, default: 22 })),
    username: Type.String({ minLength: 1, maxLength: 200 }),
    password_env: Type.Optional(EnvVarName),
    private_key_file: Type.Optional(
      Type.String({ minLength: 1, description: 'Path of an unencrypted OpenSSH/PEM private key file readable by the service' }),
    ),
    remote_directory: Type.Optional(Type.String({ minLength: 1, default: '.', description: 'Directory on the server, relative to the login directory or absolute' })),
    host_key_sha256: Type.Optional(
      Type.String({
        pattern: HOST_KEY_PIN,
        description:
          "SHA-256 of the server's host key (base64 as `ssh-keygen -lf` prints it, or hex). The connection is refused " +
          'when the server presents another key. Without it any host key is accepted, so anyone able to redirect ' +
          'the connection (DNS, routing) receives the member files and the password: set it for every real carrier.',
      }),
    ),
  },
  {
    additionalProperties: false,
    description: 'Upload files over SFTP; password_env or private_key_file (or both) must be given',
  },
)
export type SftpTransportSettings = Static<typeof SftpTransportSettings>

export const EdiTransportSettings = Type.Union([DirectoryTransportSettings, SftpTransportSettings], {
  description: 'Where the 834 files of an edi carrier are delivered',
})
export type EdiTransportSettings = Static<typeof EdiTransportSettings>

export const ApiConnectionSettings = Type.Object(
  {
    base_url: Type.String({ pattern: '^https?://', maxLength: 2000, description: "The carrier API's base URL; request paths are appended" }),
    token_env: Type.Optional(EnvVarName),
    timeout_ms: Type.Optional(Type.Integer({ minimum: 100, maximum: 300_000, default: 30_000 })),
  },
  { additionalProperties: false, description: 'How an api carrier is called' },
)
export type ApiConnectionSettings = Static<typeof ApiConnectionSettings>

/** The connection fields a carrier entry may carry, to spread into the carrier schema. */
export const CarrierConnectionFields = {
  edi_transport: Type.Optional(EdiTransportSettings),
  api_connection: Type.Optional(ApiConnectionSettings),
}
